"""Only the C extension lives here; all metadata is in pyproject.toml."""
from glob import glob

from setuptools import Extension, setup

sources = sorted(glob("native/*.c"))
ext_modules = []
if sources:
    ext_modules.append(
        Extension(
            "loadgen._native",
            sources=sources,
            include_dirs=["native"],
            extra_compile_args=["-O2", "-std=gnu11", "-Wall"],
        )
    )

setup(ext_modules=ext_modules)
