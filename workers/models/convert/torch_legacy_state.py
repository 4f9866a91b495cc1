"""Reads a PyTorch checkpoint in the legacy (pre-1.6, non-zip) serialization with the Python standard
library only, and writes one state dict of it as raw little-endian float32 tensors plus a JSON index.

usage: python3 torch_legacy_state.py CHECKPOINT KEY OUT_PREFIX
  KEY: member of the checkpoint holding the state dict ("model_state"), or "-" for the top level.
  writes OUT_PREFIX.json ({name: {"offset": float index, "shape": [...]}}) and OUT_PREFIX.f32.

Legacy layout: pickles of the magic number, protocol version and system info, then the object
(tensors are persistent references to storages), then the list of storage keys, then each storage
in that order as an int64 element count followed by its raw elements.
"""
import json
import pickle
import struct
import sys

MAGIC = 0x1950A86A20F9469CFC6C


class _Tensor:
    def __init__(self, storage, offset, size, stride):
        self.storage, self.offset, self.size, self.stride = storage, offset, tuple(size), tuple(stride)


def _rebuild(storage, offset, size, stride, *rest):
    return _Tensor(storage, offset, size, stride)


class _Unpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if name in ("_rebuild_tensor_v2", "_rebuild_tensor"):
            return _rebuild
        if module.startswith("torch"):
            return (module, name)
        if module == "collections" and name == "OrderedDict":
            import collections
            return collections.OrderedDict
        raise pickle.UnpicklingError(f"unexpected class {module}.{name}")

    def persistent_load(self, pid):
        # ("storage", storage_type, key, location, numel, view_metadata)
        if pid[0] != "storage":
            raise pickle.UnpicklingError(f"unexpected persistent id {pid[0]}")
        if pid[1] != ("torch", "FloatStorage"):
            raise pickle.UnpicklingError(f"only float32 storages are supported, found {pid[1]}")
        return pid[2]


def main(path, key, prefix):
    with open(path, "rb") as f:
        if pickle.load(f) != MAGIC:
            raise SystemExit(f"{path}: not a legacy PyTorch checkpoint")
        pickle.load(f)  # protocol version
        info = pickle.load(f)
        if not info.get("little_endian", True):
            raise SystemExit(f"{path}: big-endian checkpoints are not supported")
        obj = _Unpickler(f).load()
        keys = pickle.load(f)
        storages = {}
        for k in keys:
            (count,) = struct.unpack("<q", f.read(8))
            storages[k] = f.read(count * 4)
    state = obj if key == "-" else obj[key]
    index, blobs, at = {}, [], 0
    for name, t in state.items():
        if not isinstance(t, _Tensor):
            continue
        n = 1
        for d in t.size:
            n *= d
        contiguous = all(t.stride[i] == _prod(t.size[i + 1:]) for i in range(len(t.size)))
        if not contiguous:
            raise SystemExit(f"{name}: non-contiguous tensors are not supported")
        data = storages[t.storage][t.offset * 4:(t.offset + n) * 4]
        index[name] = {"offset": at, "shape": list(t.size)}
        blobs.append(data)
        at += n
    with open(prefix + ".f32", "wb") as out:
        for b in blobs:
            out.write(b)
    with open(prefix + ".json", "w") as out:
        json.dump(index, out)


def _prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


if __name__ == "__main__":
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    main(*sys.argv[1:])
