# The cffi extension is declared here because setuptools reads cffi_modules
# only from setup(); all other metadata lives in pyproject.toml.
from setuptools import setup

setup(
    cffi_modules=[
        "harness/fairdie/sim/_build.py:ffibuilder",
        "harness/fairdie/sim/_build.py:kernels_ffibuilder",
    ]
)
