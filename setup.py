"""Only the C extension lives here; all metadata is in pyproject.toml."""
import shlex
import subprocess
from glob import glob

from setuptools import Extension, setup


def mysql_client_flags():
    """Compile and link flags of the MariaDB/MySQL C client (for native/querydrv.c), or None.

    Without them the extension still builds and `loadgen run` uses the Python driver.
    """
    for package in ("libmariadb", "mariadb", "mysqlclient"):
        try:
            out = subprocess.run(["pkg-config", "--cflags", "--libs", package], capture_output=True,
                                 text=True, check=True).stdout
        except (OSError, subprocess.CalledProcessError):
            continue
        flags = shlex.split(out)
        return {
            "include_dirs": [f[2:] for f in flags if f.startswith("-I")],
            "library_dirs": [f[2:] for f in flags if f.startswith("-L")],
            "libraries": [f[2:] for f in flags if f.startswith("-l")],
            "define_macros": [("LOADGEN_HAVE_MYSQL", "1")],
        }
    print("warning: no libmariadb/libmysqlclient (apt install libmariadb-dev pkg-config): "
          "building loadgen._native without the native query driver")
    return {}


sources = sorted(glob("native/*.c"))
ext_modules = []
if sources:
    client = mysql_client_flags()
    ext_modules.append(
        Extension(
            "loadgen._native",
            sources=sources,
            include_dirs=["native", *client.get("include_dirs", [])],
            library_dirs=client.get("library_dirs", []),
            libraries=[*client.get("libraries", []), "m"],  # libm: pow() in keydist.c
            define_macros=client.get("define_macros", []),
            extra_compile_args=["-O2", "-std=gnu11", "-Wall"],
        )
    )

setup(ext_modules=ext_modules)
