package bloomsimd

// cInsertNewHash is the insert-and-report-new of a filter without a single
// bit array (layered filters), through the C library. Until the core's
// bloomsimd_add_new_hashes lands there are no such filters.
func (f *Filter) cInsertNewHash(h uint64) (bool, error) {
	before := f.cContainsHash(h)
	if err := f.cAddHash(h); err != nil {
		return false, err
	}
	return !before, nil
}
