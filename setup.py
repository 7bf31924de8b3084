"""Packages build/lib/libsatlib.so next to the Python package (setup.py only adds that step to
pyproject.toml). The library comes from `make lib`, or from $SATLIB_LIBRARY when that is set."""
import os
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

ROOT = os.path.dirname(os.path.abspath(__file__))


class BuildPyWithLibrary(build_py):
    def run(self):
        super().run()
        library = os.environ.get("SATLIB_LIBRARY")
        if not library:
            subprocess.check_call(["make", "-C", ROOT, "lib"])
            library = os.path.join(ROOT, "build", "lib", "libsatlib.so")
        if not os.path.isfile(library):
            raise SystemExit("satlib: %s is missing: `make lib` did not build it" % library)
        self.copy_file(library, os.path.join(self.build_lib, "satlib", "libsatlib.so"))


class BinaryDistribution(Distribution):
    """The wheel holds a shared library: a platform wheel, not a pure-Python one."""

    def has_ext_modules(self):
        return True


# Build files go under build/python (build/lib is the C library's), egg-info too (not in python/).
BUILD_BASE = os.path.join("build", "python")
os.makedirs(os.path.join(ROOT, BUILD_BASE), exist_ok=True)
setup(cmdclass={"build_py": BuildPyWithLibrary}, distclass=BinaryDistribution,
      options={"build": {"build_base": BUILD_BASE}, "egg_info": {"egg_base": BUILD_BASE}})
