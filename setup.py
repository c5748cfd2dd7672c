"""Builds the Python package mancala_tb with CMake (pyproject.toml says how to call it).

The compiled part, mancala_tb/_core, is the CMake target mancala_tb_python: configured
here without tests, benchmarks or MPI and built alone, then copied into the package
beside python/mancala_tb/ (the re-exports, the type stubs, py.typed).

Environment:
  CMAKE_ARGS          extra CMake options (e.g. -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  MANCALA_BUILD_DIR   an already configured build folder of this tree to build the target
                      in (the test suite's: no second compile of the library)
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def version():
    """The one version, from project() in CMakeLists.txt."""
    text = (ROOT / "CMakeLists.txt").read_text()
    return re.search(r"project\(mancala_tb VERSION ([0-9.]+)", text).group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = os.environ.get("MANCALA_BUILD_DIR")
        if build:
            build = Path(build).resolve()
        else:
            build = Path(self.build_temp).resolve() / "cmake"
            configure = ["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                         f"-DMANCALA_PYTHON={sys.executable}", "-DMANCALA_TESTS=OFF", "-DMANCALA_BENCH=OFF",
                         "-DMANCALA_MPI=OFF", "-DMANCALA_NATIVE=OFF", *shlex.split(os.environ.get("CMAKE_ARGS", ""))]
            subprocess.run(configure, check=True)
        jobs = str(os.cpu_count() or 1)
        subprocess.run(["cmake", "--build", str(build), "--target", "mancala_tb_python", "-j", jobs], check=True)
        built = sorted((build / "python" / "mancala_tb").glob("_core*.so"))
        if not built:
            sys.exit(f"setup.py: no mancala_tb/_core*.so in {build}/python (is pybind11 found? see CMake's output)")
        out = Path(self.get_ext_fullpath(ext.name))
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built[0], out)


setup(
    version=version(),
    packages=["mancala_tb"],
    package_dir={"": "python"},
    package_data={"mancala_tb": ["py.typed", "_core.pyi"]},
    ext_modules=[Extension("mancala_tb._core", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": "build-python"}},
    zip_safe=False,
)
