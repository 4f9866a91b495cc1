#!/usr/bin/env python3
"""Unpacks a wheel (.whl, zip) or sdist (.tar.gz) into a directory; standard library only.

With `--npz-raw FILE.npz DEST_DIR`, also writes each float32 array of a NumPy `.npz` archive as raw
little-endian bytes (`DEST_DIR/<array name>.f32`), the form the project's mel front end loads.
Tooling for `bun run models -- pull`; never in the serving path.

Usage: unpack.py ARCHIVE DEST [--npz-raw FILE.npz DEST_DIR]
"""
import ast
import io
import shutil
import sys
import tarfile
import zipfile
from pathlib import Path


def unpack(archive: Path, dest: Path) -> None:
    tmp = dest.with_name(dest.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    if archive.name.endswith(".whl") or archive.name.endswith(".zip"):
        with zipfile.ZipFile(archive) as z:
            for name in z.namelist():
                if name.startswith("/") or ".." in Path(name).parts:
                    raise SystemExit(f"{archive}: unsafe member {name}")
            z.extractall(tmp)
    elif archive.name.endswith(".tar.gz"):
        with tarfile.open(archive) as t:
            t.extractall(tmp, filter="data")
    else:
        raise SystemExit(f"{archive}: not a wheel or .tar.gz sdist")
    shutil.rmtree(dest, ignore_errors=True)
    tmp.rename(dest)


def npz_to_raw(npz: Path, dest: Path) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(npz) as z:
        for name in z.namelist():
            data = z.read(name)
            if data[:6] != b"\x93NUMPY":
                raise SystemExit(f"{npz}:{name}: not a .npy array")
            major = data[6]
            hlen_size = 2 if major == 1 else 4
            hlen = int.from_bytes(data[8 : 8 + hlen_size], "little")
            header = ast.literal_eval(data[8 + hlen_size : 8 + hlen_size + hlen].decode("latin1"))
            if header["descr"] != "<f4" or header["fortran_order"]:
                raise SystemExit(f"{npz}:{name}: expected C-order little-endian float32, got {header}")
            out = dest / (Path(name).stem + ".f32")
            out.write_bytes(data[8 + hlen_size + hlen :])


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 5) or (len(argv) == 5 and argv[2] != "--npz-raw"):
        print(__doc__, file=sys.stderr)
        return 2
    unpack(Path(argv[0]), Path(argv[1]))
    if len(argv) == 5:
        npz_to_raw(Path(argv[1]) / argv[3], Path(argv[4]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
