"""Run by an installed package's Python, outside the tree (scripts/test.sh,
stage python): the package imports from that environment's site-packages,
ships its stubs, and works end to end on Debian's NumPy."""
import os
import sys
import tempfile

import numpy as np

import bloomsimd

here = os.path.dirname(bloomsimd.__file__)
assert here.startswith(sys.prefix), f"imported {here}, not from {sys.prefix}"
for name in ("__init__.pyi", "py.typed"):
    assert os.path.exists(os.path.join(here, name)), f"{name} not installed"

keys = np.random.default_rng(7).integers(0, 2**64, 100_000, dtype=np.uint64)
f = bloomsimd.Filter(len(keys), 0.01)
f.add_many(keys[:50_000])
hits = f.contains_many(keys)
assert hits[:50_000].all(), "a false negative"
assert hits[50_000:].mean() < 0.02, hits[50_000:].mean()
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "f.bsf")
    f.save(path)
    g = bloomsimd.Filter.load(path)
    assert g.to_bytes() == f.to_bytes()
print(f"installed bloomsimd {bloomsimd.__version__} at {here}: {g.info.kernel}/{g.info.layout} ok")
