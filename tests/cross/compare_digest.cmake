# compare_digest.cmake — cmake -P helper for CTest: the digest of KERNEL
# must equal the digest of the scalar kernel of the same build.
# -DDIGEST=<program> -DKERNEL=<name> [-DEMULATOR=<command list>]
foreach(k IN ITEMS ${KERNEL} scalar)
  execute_process(COMMAND ${EMULATOR} ${DIGEST} ${k} OUTPUT_VARIABLE out_${k} RESULT_VARIABLE rc_${k})
  if(rc_${k} EQUAL 77)
    # cmake -P cannot exit 77; CTest matches this line (SKIP_REGULAR_EXPRESSION).
    message(FATAL_ERROR "SKIP: kernel ${k} cannot run here")
  elseif(NOT rc_${k} EQUAL 0)
    message(FATAL_ERROR "digest ${k} failed (${rc_${k}}):\n${out_${k}}")
  endif()
endforeach()
if(NOT out_${KERNEL} STREQUAL out_scalar)
  message(FATAL_ERROR "kernel ${KERNEL} digest differs from scalar:\n--- ${KERNEL}\n${out_${KERNEL}}--- scalar\n${out_scalar}")
endif()
message("${KERNEL} == scalar:\n${out_${KERNEL}}")
