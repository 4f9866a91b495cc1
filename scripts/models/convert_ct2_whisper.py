#!/usr/bin/env python3
"""Converts a CTranslate2 (faster-whisper) Whisper model into the onnx-community ONNX layout.

Tooling only: `bun run models -- pull` runs this in the project's Python virtual environment
(`scripts/models/requirements.txt`) when a Whisper model comes from a registry package that ships
CTranslate2 weights. Nothing here is in the serving path.

Steps:
 1. Read CTranslate2's `model.bin` (given whole or as `model.bin.partN` pieces). The format, version 6:
    u32 binary version, string spec name, u32 spec revision, u32 variable count, then per variable:
    string name, u8 rank, u32 dims, u8 dtype (float32, int8, int16, int32, float16, bfloat16),
    u32 byte count, raw bytes; then u32 alias count and (alias, target) string pairs.
    Strings are u16 length (with the NUL) + UTF-8 + NUL; all little-endian.
 2. Invert CTranslate2's Whisper converter: its self-attention holds Q, K and V fused in `linear_0`,
    its cross-attention holds Q in `linear_0` and K, V fused in `linear_1`; Whisper's K projection has
    no bias (CTranslate2 stores zeros there, which attention ignores anyway). The result is a Hugging
    Face `WhisperForConditionalGeneration` state dict, with `config.json` (dimensions from the weight
    shapes) and `generation_config.json` (special tokens from the model's `tokenizer.json`, alignment
    heads and suppressed tokens from CTranslate2's `config.json`).
 3. Export with the upstream exporter, optimum's ONNX export for
    `automatic-speech-recognition-with-past`, which writes `encoder_model.onnx` and
    `decoder_model_merged.onnx` as in the onnx-community exports; let the encoder take fewer than
    3000 mel frames (its positional table sliced to its input, the same output on 3000 frames), so
    that a short utterance can have a shorter window; let the decoder's first call project only its
    last 4 positions onto the vocabulary (the rows a decode reads: the others cost most of a first
    call with a long prompt); let both branches of the merged decoder share one transposed copy of
    the token embeddings for their output projection (the exporter transposes it in each branch,
    and onnxruntime folds each into a copy of its own: 150 MB more per loaded tiny.en decoder);
    and add int8 variants made with onnxruntime's dynamic quantization, named as in those exports:
    - `*_quantized.onnx` (encoder and decoder): unsigned 8-bit weights, every quantizable operator.
      onnxruntime multiplies them with 16-bit intermediates, exact on any x86 CPU (AVX2 included).
    - `encoder_model_int8.onnx`: signed 8-bit weights with a zero point (asymmetric, as the
      unsigned ones), matrix products only (the two convolutions stay float: onnxruntime's
      signed-int8 convolution is slower than the float one). Symmetric signed weights lost words
      that these keep: one scale per matrix, tiny.en on jfk.wav ("and so am i fellow america");
      one per column, on the 8-kHz clip ("wet with a do"). On CPUs with
      8-bit dot-product instructions (AVX-512 VNNI, AVX-VNNI, AMX) onnxruntime runs these products
      about 4x faster than the unsigned ones; without them its 16-bit intermediates can saturate.
      No whole-decoder counterpart: on the service's clips a signed-int8 decoder cost words (bench/wer).
    - `decoder_model_merged_cross_int8.onnx` (with `--cross-int8-decoder`): the fp32 decoder with
      only its cross-attention key and value projections (the products over the encoder's 1500
      positions, in a window's first call) in signed 8-bit weights, one scale per column; used with
      the signed-int8 encoder.
    - `decoder_model_merged_w8.onnx` (with `--weight-int8-decoder`): the decoder with its layers'
      weight matrices in unsigned 8-bit blocks of 32 rows per column, each with its scale and zero
      point, as onnxruntime's MatMulNBits (accuracy level 4: the activations quantized per block
      too); the vocabulary projection and the cross-attention projections of the encoder's output
      stay fp32. Used with the signed-int8 encoder on CPUs with 8-bit dot products.
    - `decoder_alignment.onnx`: a decoder without a cache for word timing. It takes the tokens of a
      window ([start of transcript, <|notimestamps|>, text, end of text]) and the merged decoder's
      cross-attention keys and values of that window (`present.N.encoder.*` of its first call, so the
      encoder's output is not projected again), runs the layers up to the last one holding an
      alignment head, and outputs those heads' cross-attention weights [heads, tokens, frames]: the
      matrix openai-whisper's and faster-whisper's dynamic time warping aligns words with.
    Each encoder file is also cut into two stages (`encoder_model*.stage0.onnx`, `.stage1.onnx`): the
    convolutions, positions and first half of the transformer layers, then the other half (with the
    final layer norm), which takes the residual stream the first writes. Chained, they compute
    exactly what the whole file computes; the service runs them one after the other so that a decode
    it no longer wants stops after the stage running, not after the whole encoder.
 4. Verify: compare the encoder's outputs with CTranslate2's on the same features, and each encoder
    file's chained stages with the whole file (at most 1e-5 apart), then decode a
    known clip with faster-whisper on the original CTranslate2 weights and with the exported ONNX files
    (fp32, int8, and the signed-int8 encoder with the fp32 decoder) through onnxruntime, greedy, and
    require the same words
    (word error rate at most --max-wer against the reference decoder); compare the alignment decoder's
    weights with transformers' eager cross-attentions on the clip's text (at most 1e-4 apart).
    Exit status 1 otherwise.

Usage:
  convert_ct2_whisper.py --source DIR [--source DIR ...] --out DIR [--audio CLIP.wav] [--language en] [--cross-int8-decoder]
                        [--weight-int8-decoder]
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import struct
import sys
import time
from pathlib import Path

import numpy as np

DTYPES = [np.float32, np.int8, np.int16, np.int32, np.float16, None]  # None: bfloat16 (not used by Whisper)


def log(msg: str) -> None:
    print(f"[convert] {msg}", flush=True)


# ---------------------------------------------------------------------------------------------- CT2 model.bin


def assemble_ct2_dir(sources: list[Path], dest: Path) -> Path:
    """Copies a CTranslate2 model directory out of one or more unpacked packages (joining model.bin.partN)."""
    dest.mkdir(parents=True, exist_ok=True)
    parts: list[tuple[int, Path]] = []
    whole: Path | None = None
    for src in sources:
        for f in sorted(src.rglob("*")):
            if not f.is_file():
                continue
            m = re.fullmatch(r"model\.bin\.part(\d+)", f.name)
            if m:
                parts.append((int(m.group(1)), f))
            elif f.name == "model.bin":
                whole = f
            elif f.name in ("config.json", "tokenizer.json", "vocabulary.txt", "vocabulary.json", "preprocessor_config.json"):
                shutil.copyfile(f, dest / f.name)
    target = dest / "model.bin"
    if whole is not None:
        shutil.copyfile(whole, target)
    elif parts:
        numbers = sorted(n for n, _ in parts)
        if numbers != list(range(numbers[0], numbers[0] + len(numbers))):
            raise SystemExit(f"model.bin parts are not consecutive: {numbers}")
        with open(target, "wb") as out:
            for _, p in sorted(parts):
                with open(p, "rb") as f:
                    shutil.copyfileobj(f, out, 1 << 24)
    else:
        raise SystemExit(f"no model.bin or model.bin.partN under {', '.join(map(str, sources))}")
    for needed in ("config.json", "tokenizer.json"):
        if not (dest / needed).exists():
            raise SystemExit(f"{needed} missing from {', '.join(map(str, sources))}")
    return dest


def read_ct2(path: Path) -> tuple[str, dict[str, np.ndarray]]:
    """Parses a CTranslate2 model.bin into name -> array (aliases resolved)."""
    buf = memoryview(path.read_bytes())
    off = 0

    def u(fmt: str) -> int:
        nonlocal off
        (v,) = struct.unpack_from("<" + fmt, buf, off)
        off += struct.calcsize(fmt)
        return v

    def s() -> str:
        nonlocal off
        n = u("H")
        v = bytes(buf[off : off + n - 1]).decode("utf-8")
        off += n
        return v

    version = u("I")
    if version < 5 or version > 6:
        raise SystemExit(f"{path}: unsupported CTranslate2 binary version {version}")
    spec = s()
    u("I")  # spec revision
    variables: dict[str, np.ndarray] = {}
    for _ in range(u("I")):
        name = s()
        shape = [u("I") for _ in range(u("B"))]
        dtype = DTYPES[u("B")]
        nbytes = u("I")
        if off + nbytes > len(buf):
            raise SystemExit(f"{path}: truncated at variable {name} (incomplete download or missing part?)")
        if dtype is None:
            raise SystemExit(f"{path}: variable {name} is bfloat16, not supported")
        variables[name] = np.frombuffer(buf[off : off + nbytes], dtype=dtype).reshape(shape)
        off += nbytes
    for _ in range(u("I")):
        alias, target = s(), s()
        variables[alias] = variables[target]
    if off != len(buf):
        raise SystemExit(f"{path}: {len(buf) - off} trailing bytes")
    if spec != "WhisperSpec":
        raise SystemExit(f"{path}: spec {spec}, expected WhisperSpec")
    if any(k.endswith("weight_scale") for k in variables):
        raise SystemExit(f"{path}: int8-quantized CTranslate2 weights are not supported (need float16/float32)")
    return spec, variables


# ------------------------------------------------------------------------------------- HF state dict + configs


def to_hf_state_dict(v: dict[str, np.ndarray]) -> tuple[dict[str, np.ndarray], dict]:
    """Maps CTranslate2 Whisper variables to WhisperForConditionalGeneration names (float32)."""
    f = lambda k: np.asarray(v[k], dtype=np.float32)  # noqa: E731
    sd: dict[str, np.ndarray] = {}
    n_enc = len({m.group(1) for k in v if (m := re.match(r"encoder/layer_(\d+)/", k))})
    n_dec = len({m.group(1) for k in v if (m := re.match(r"decoder/layer_(\d+)/", k))})
    d = v["encoder/conv1/weight"].shape[0]

    def linear(hf: str, ct2: str, rows: slice | None = None, bias: bool = True) -> None:
        w, b = f(f"{ct2}/weight"), f(f"{ct2}/bias")
        rows = rows or slice(None)
        sd[f"{hf}.weight"] = w[rows]
        if bias:
            sd[f"{hf}.bias"] = b[rows]

    def norm(hf: str, ct2: str) -> None:
        sd[f"{hf}.weight"], sd[f"{hf}.bias"] = f(f"{ct2}/gamma"), f(f"{ct2}/beta")

    def self_attn(hf: str, ct2: str) -> None:
        linear(f"{hf}.q_proj", f"{ct2}/linear_0", slice(0, d))
        linear(f"{hf}.k_proj", f"{ct2}/linear_0", slice(d, 2 * d), bias=False)
        linear(f"{hf}.v_proj", f"{ct2}/linear_0", slice(2 * d, 3 * d))
        linear(f"{hf}.out_proj", f"{ct2}/linear_1")

    def cross_attn(hf: str, ct2: str) -> None:
        linear(f"{hf}.q_proj", f"{ct2}/linear_0")
        linear(f"{hf}.k_proj", f"{ct2}/linear_1", slice(0, d), bias=False)
        linear(f"{hf}.v_proj", f"{ct2}/linear_1", slice(d, 2 * d))
        linear(f"{hf}.out_proj", f"{ct2}/linear_2")

    def ffn(hf: str, ct2: str) -> None:
        linear(f"{hf}.fc1", f"{ct2}/linear_0")
        linear(f"{hf}.fc2", f"{ct2}/linear_1")
        norm(f"{hf}.final_layer_norm", f"{ct2}/layer_norm")

    for conv in ("conv1", "conv2"):
        sd[f"model.encoder.{conv}.weight"] = f(f"encoder/{conv}/weight")
        sd[f"model.encoder.{conv}.bias"] = f(f"encoder/{conv}/bias")
    sd["model.encoder.embed_positions.weight"] = f("encoder/position_encodings/encodings")
    for i in range(n_enc):
        hf, ct2 = f"model.encoder.layers.{i}", f"encoder/layer_{i}"
        self_attn(f"{hf}.self_attn", f"{ct2}/self_attention")
        norm(f"{hf}.self_attn_layer_norm", f"{ct2}/self_attention/layer_norm")
        ffn(hf, f"{ct2}/ffn")
    norm("model.encoder.layer_norm", "encoder/layer_norm")

    sd["model.decoder.embed_tokens.weight"] = f("decoder/embeddings/weight")
    sd["model.decoder.embed_positions.weight"] = f("decoder/position_encodings/encodings")
    for i in range(n_dec):
        hf, ct2 = f"model.decoder.layers.{i}", f"decoder/layer_{i}"
        self_attn(f"{hf}.self_attn", f"{ct2}/self_attention")
        norm(f"{hf}.self_attn_layer_norm", f"{ct2}/self_attention/layer_norm")
        cross_attn(f"{hf}.encoder_attn", f"{ct2}/attention")
        norm(f"{hf}.encoder_attn_layer_norm", f"{ct2}/attention/layer_norm")
        ffn(hf, f"{ct2}/ffn")
    norm("model.decoder.layer_norm", "decoder/layer_norm")
    if "decoder/projection/weight" in v and not np.array_equal(v["decoder/projection/weight"], v["decoder/embeddings/weight"]):
        raise SystemExit("output projection differs from the token embeddings; Whisper ties them")

    dims = {
        "d_model": d,
        "num_mel_bins": int(v["encoder/conv1/weight"].shape[1]),
        "vocab_size": int(v["decoder/embeddings/weight"].shape[0]),
        "encoder_layers": n_enc,
        "decoder_layers": n_dec,
        "encoder_attention_heads": int(v["encoder/num_heads"]),
        "decoder_attention_heads": int(v["decoder/num_heads"]),
        "encoder_ffn_dim": int(v["encoder/layer_0/ffn/linear_0/weight"].shape[0]),
        "decoder_ffn_dim": int(v["decoder/layer_0/ffn/linear_0/weight"].shape[0]),
        "max_source_positions": int(v["encoder/position_encodings/encodings"].shape[0]),
        "max_target_positions": int(v["decoder/position_encodings/encodings"].shape[0]),
    }
    return sd, dims


def special_tokens(tokenizer_json: Path) -> dict[str, int]:
    added = json.loads(tokenizer_json.read_text())["added_tokens"]
    return {t["content"]: t["id"] for t in added}


def build_configs(dims: dict, ct2_config: dict, tokens: dict[str, int]) -> tuple[dict, dict]:
    """config.json and generation_config.json in the Hugging Face Whisper layout."""
    multilingual = dims["vocab_size"] >= 51865
    tok = lambda name: tokens[f"<|{name}|>"]  # noqa: E731
    eot, sot = tok("endoftext"), tok("startoftranscript")
    lang_to_id = {c: i for c, i in tokens.items() if re.fullmatch(r"<\|[a-z]{2,3}(-[A-Za-z]+)?\|>", c) and sot < i < tok("translate")}
    suppress = list(ct2_config.get("suppress_ids") or [])
    begin_suppress = list(ct2_config.get("suppress_ids_begin") or [220, eot])
    config = {
        "architectures": ["WhisperForConditionalGeneration"],
        "model_type": "whisper",
        "activation_function": "gelu",
        "scale_embedding": False,
        "use_cache": True,
        "torch_dtype": "float32",
        **dims,
        "bos_token_id": eot,
        "eos_token_id": eot,
        "pad_token_id": eot,
        "decoder_start_token_id": sot,
        "begin_suppress_tokens": begin_suppress,
        "median_filter_width": 7,
    }
    gen = {
        "alignment_heads": ct2_config.get("alignment_heads")
        or [[l, h] for l in range(dims["decoder_layers"] // 2, dims["decoder_layers"]) for h in range(dims["decoder_attention_heads"])],
        "begin_suppress_tokens": begin_suppress,
        "bos_token_id": eot,
        "decoder_start_token_id": sot,
        "eos_token_id": eot,
        "pad_token_id": eot,
        "is_multilingual": multilingual,
        "max_initial_timestamp_index": 50,
        "max_length": dims["max_target_positions"],
        "no_timestamps_token_id": tok("notimestamps"),
        "prev_sot_token_id": tok("startofprev"),
        "return_timestamps": False,
        "suppress_tokens": suppress,
    }
    if multilingual:
        gen["lang_to_id"] = lang_to_id
        gen["task_to_id"] = {"transcribe": tok("transcribe"), "translate": tok("translate")}
    return config, gen


# -------------------------------------------------------------------------------------------- export, quantize


def export_onnx(ct2_dir: Path, work: Path, out: Path, cross_int8: bool, weight_int8: bool) -> None:
    import torch
    from transformers import WhisperConfig, WhisperFeatureExtractor, WhisperForConditionalGeneration

    _, variables = read_ct2(ct2_dir / "model.bin")
    sd, dims = to_hf_state_dict(variables)
    ct2_config = json.loads((ct2_dir / "config.json").read_text())
    config, gen = build_configs(dims, ct2_config, special_tokens(ct2_dir / "tokenizer.json"))
    log(f"dims: {json.dumps(dims)}; multilingual={gen['is_multilingual']}")

    hf_dir = work / "hf"
    model = WhisperForConditionalGeneration(WhisperConfig(**config))
    missing, unexpected = model.load_state_dict({k: torch.from_numpy(a) for k, a in sd.items()}, strict=False)
    missing = [m for m in missing if m != "proj_out.weight"]  # tied to the token embeddings
    if missing or unexpected:
        raise SystemExit(f"state dict mismatch: missing {missing}, unexpected {unexpected}")
    model.tie_weights()
    model.save_pretrained(hf_dir)
    (hf_dir / "generation_config.json").write_text(json.dumps(gen, indent=2) + "\n")
    WhisperFeatureExtractor(feature_size=dims["num_mel_bins"]).save_pretrained(hf_dir)
    shutil.copyfile(ct2_dir / "tokenizer.json", hf_dir / "tokenizer.json")
    alignment_decoder(model, gen["alignment_heads"], work / ALIGNMENT)
    del model, sd, variables

    from optimum.exporters.onnx import main_export

    onnx_dir = work / "onnx"
    t0 = time.time()
    main_export(
        str(hf_dir),
        output=str(onnx_dir),
        task="automatic-speech-recognition-with-past",
        do_validation=False,
        device="cpu",
        library_name="transformers",
    )
    log(f"exported in {time.time() - t0:.0f} s")

    variable_length_encoder(onnx_dir / "encoder_model.onnx", dims["max_source_positions"])
    last_positions_logits(onnx_dir / "decoder_model_merged.onnx")

    from onnxruntime.quantization import QuantType, quantize_dynamic

    out.mkdir(parents=True, exist_ok=True)
    for name in ("encoder_model", "decoder_model_merged"):
        src = onnx_dir / f"{name}.onnx"
        if not src.exists():
            raise SystemExit(f"exporter did not write {src.name}")
        shutil.copyfile(src, out / f"{name}.onnx")
        for extra in onnx_dir.glob(f"{name}.onnx_data"):
            shutil.copyfile(extra, out / extra.name)
        t0 = time.time()
        quantize_dynamic(
            str(src),
            str(out / f"{name}_quantized.onnx"),
            weight_type=QuantType.QUInt8,
            extra_options={"EnableSubgraph": True, "MatMulConstBOnly": True},
        )
        if name == "encoder_model":
            quantize_dynamic(
                str(src),
                str(out / f"{name}_int8.onnx"),
                weight_type=QuantType.QInt8,
                op_types_to_quantize=["MatMul"],
                extra_options={"EnableSubgraph": True, "MatMulConstBOnly": True, "WeightSymmetric": False},
            )
        log(f"quantized {name} in {time.time() - t0:.0f} s")
    for f in ("config.json", "generation_config.json", "preprocessor_config.json", "tokenizer.json"):
        shutil.copyfile(hf_dir / f, out / f)
    shutil.copyfile(work / ALIGNMENT, out / ALIGNMENT)
    for variant in ("", "_quantized", "_int8"):
        encoder_stages(out / f"encoder_model{variant}.onnx")
    # after quantizing, so that the int8 decoder's projection stays as the quantizer left it
    for variant in ("", "_quantized"):
        shared_projection(out / f"decoder_model_merged{variant}.onnx")
    if cross_int8:
        cross_attention_int8(out / "decoder_model_merged.onnx", out / f"decoder_model_merged{CROSS_INT8}.onnx")
    if weight_int8:
        weight_int8_decoder(out / "decoder_model_merged.onnx", out / f"decoder_model_merged{WEIGHT_INT8}.onnx")


ALIGNMENT = "decoder_alignment.onnx"


def alignment_decoder(model, heads: list[list[int]], path: Path) -> None:
    """Exports the word-timing decoder (`ALIGNMENT`, see the module's docstring) of a loaded HF model.

    Its own forward over the HF modules' weights, not the HF decoder with `output_attentions`: the
    exporter's decoder takes the encoder's output and projects it onto keys and values in every
    layer (most of a call over 1500 frames); this one reads the projections the merged decoder
    already made, and stops at the last alignment head's softmax.
    """
    import torch

    dec = model.model.decoder
    last = max(layer for layer, _ in heads)
    n_heads = model.config.decoder_attention_heads
    head_dim = model.config.d_model // n_heads
    scale = head_dim**-0.5

    def split(x):  # [1, T, d] -> [1, heads, T, head_dim]
        return x.view(1, -1, n_heads, head_dim).transpose(1, 2)

    class Alignment(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.dec = dec  # registered, so that the exporter stores its weights as initializers

        def forward(self, input_ids, *cross):
            dec = self.dec
            t = input_ids.shape[1]
            x = dec.embed_tokens(input_ids) + dec.embed_positions.weight[:t]
            causal = torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
            picked = []
            for i, layer in enumerate(dec.layers[: last + 1]):
                h = layer.self_attn_layer_norm(x)
                a = layer.self_attn
                w = torch.softmax(split(a.q_proj(h)) @ split(a.k_proj(h)).transpose(2, 3) * scale + causal, dim=-1)
                x = x + a.out_proj((w @ split(a.v_proj(h))).transpose(1, 2).reshape(1, t, -1))
                c = layer.encoder_attn
                w = torch.softmax(split(c.q_proj(layer.encoder_attn_layer_norm(x))) @ cross[2 * i].transpose(2, 3) * scale, dim=-1)
                picked += [w[0, hd] for layer_i, hd in heads if layer_i == i]
                if i == last:
                    break
                x = x + c.out_proj((w @ cross[2 * i + 1]).transpose(1, 2).reshape(1, t, -1))
                x = x + layer.fc2(torch.nn.functional.gelu(layer.fc1(layer.final_layer_norm(x))))
            return torch.stack(picked)

    names = [f"past_key_values.{i}.encoder.{kv}" for i in range(last + 1) for kv in ("key", "value")]
    frames = 1500
    cross = tuple(torch.zeros(1, n_heads, frames, head_dim) for _ in names)
    axes = {"input_ids": {1: "tokens"}, "alignment_weights": {1: "tokens", 2: "frames"}, **{n: {2: "frames"} for n in names}}
    with torch.no_grad():
        torch.onnx.export(Alignment().eval().requires_grad_(False), (torch.zeros(1, 8, dtype=torch.int64), *cross), str(path), input_names=["input_ids", *names],
                          output_names=["alignment_weights"], dynamic_axes=axes, opset_version=17, dynamo=False)
    log(f"{path.name}: {len(heads)} alignment heads, layers 0-{last}")


def check_alignment(out: Path, work: Path, audio: np.ndarray, tokens: list[int]) -> float:
    """Largest absolute difference between the alignment decoder's weights (on the merged decoder's
    cross-attention keys and values) and transformers' eager cross-attentions of the same heads."""
    import onnxruntime as ort
    import torch
    from transformers import WhisperFeatureExtractor, WhisperForConditionalGeneration

    feats = WhisperFeatureExtractor.from_pretrained(str(out))(audio, sampling_rate=16000, return_tensors="np").input_features.astype(np.float32)
    hidden = ort.InferenceSession(str(out / "encoder_model.onnx"), providers=["CPUExecutionProvider"]).run(None, {"input_features": feats})[0]
    merged = ort.InferenceSession(str(out / "decoder_model_merged.onnx"), providers=["CPUExecutionProvider"])
    feeds = {"input_ids": np.array([tokens], dtype=np.int64), "encoder_hidden_states": hidden, "use_cache_branch": np.array([False])}
    config = json.loads((out / "config.json").read_text())
    n_heads = config["decoder_attention_heads"]
    for i in merged.get_inputs():
        if i.name.startswith("past_key_values"):
            feeds[i.name] = np.zeros((1, n_heads, 0, config["d_model"] // n_heads), dtype=np.float32)
    present = dict(zip([o.name for o in merged.get_outputs()], merged.run(None, feeds)))
    align = ort.InferenceSession(str(out / ALIGNMENT), providers=["CPUExecutionProvider"])
    ins = {"input_ids": feeds["input_ids"]}
    for i in align.get_inputs()[1:]:
        ins[i.name] = present[i.name.replace("past_key_values", "present")]
    got = align.run(None, ins)[0]
    model = WhisperForConditionalGeneration.from_pretrained(str(work / "hf"), attn_implementation="eager").eval()
    with torch.no_grad():
        ref = model(encoder_outputs=(torch.from_numpy(hidden),), decoder_input_ids=torch.tensor([tokens]), output_attentions=True).cross_attentions
    heads = json.loads((out / "generation_config.json").read_text())["alignment_heads"]
    want = np.stack([ref[layer][0, h].numpy() for layer, h in heads])
    return float(np.max(np.abs(want - got)))


def stage_path(encoder: Path, k: int) -> Path:
    return encoder.with_name(f"{encoder.stem}.stage{k}.onnx")


def encoder_stages(path: Path) -> list[Path]:
    """Cuts an encoder file into two stages that chain input_features → last_hidden_state: the
    convolutions, positions and first half of the layers, then the other half.

    The cut is the tensor that carries the residual stream into the middle layer: it must be the
    only tensor computed in one of the exporter's `/layers.N/` scopes and read in the next. Two
    stages, not one per layer: onnxruntime gives every session its own memory arena, each as large
    as its largest run (the attention of a 30-s window), so each further stage costs its engine
    thread about another 70 (tiny.en) to 90 MB (base) once it has run.
    """
    import onnx
    from onnx import helper
    from onnx.utils import Extractor

    model = onnx.load(str(path))
    graph = model.graph
    scope = lambda name: int(m.group(1)) if (m := re.match(r"/layers\.(\d+)/", name)) else None  # noqa: E731
    producer = {o: n for n in graph.node for o in n.output}
    crossing: dict[int, set[str]] = {}
    for n in graph.node:
        layer = scope(n.name)
        if layer is None:
            continue
        for i in n.input:
            p = producer.get(i)
            if p is not None and p.op_type != "Constant" and scope(p.name) != layer:
                crossing.setdefault(layer, set()).add(i)
    layers = sorted(crossing)
    if not layers or layers != list(range(len(layers))) or any(len(c) != 1 for c in crossing.values()):
        raise SystemExit(f"{path.name}: cannot find one residual tensor entering each encoder layer: {crossing}")
    cut = next(iter(crossing[len(layers) // 2]))
    ends = [graph.input[0].name, cut, graph.output[0].name]
    # The extractor declares a stage's input and output from the graph's value infos, which shape
    # inference may not reach past the sliced positional table: the residual stream is float,
    # [batch, positions, d_model].
    known = {v.name for v in graph.value_info}
    d_model = graph.output[0].type.tensor_type.shape.dim[2]
    if cut not in known:
        graph.value_info.append(helper.make_tensor_value_info(cut, onnx.TensorProto.FLOAT, ["batch_size", "encoder_positions", d_model.dim_value or d_model.dim_param]))
    extractor = Extractor(model)
    stages = []
    for k in range(len(ends) - 1):
        sub = extractor.extract_model([ends[k]], [ends[k + 1]])
        stages.append(stage_path(path, k))
        onnx.save(sub, str(stages[-1]))
    log(f"{path.name}: {len(stages)} stages")
    return stages


def compare_stages(encoder: Path, feats: np.ndarray) -> float:
    """Largest absolute difference between the whole encoder's output and its stages' chained."""
    import onnxruntime as ort

    run = lambda p, x: (lambda s: s.run(None, {s.get_inputs()[0].name: x})[0])(ort.InferenceSession(str(p), providers=["CPUExecutionProvider"]))  # noqa: E731
    whole = run(encoder, feats)
    x, k = feats, 0
    while stage_path(encoder, k).exists():
        x = run(stage_path(encoder, k), x)
        k += 1
    if k == 0 or x.shape != whole.shape:
        return float("inf")
    return float(np.max(np.abs(whole - x)))


def save_model(model, path: Path, external: bool) -> None:
    """Writes a graph changed in place back to `path`: its weights beside it when they were stored so, else checked and in one file."""
    import onnx

    if external:
        onnx.save(model, str(path), save_as_external_data=True, location=path.name + "_data")
    else:
        onnx.checker.check_model(model)
        onnx.save(model, str(path))


def variable_length_encoder(path: Path, positions: int) -> None:
    """Lets the exported encoder take fewer than 3000 mel frames (in place).

    The exporter adds the whole positional table ([positions, d_model]) to the convolutions' output,
    which fixes the input at 2 x positions frames. Here that table is sliced to the length of the
    convolutions' output first, and the input's frame count and the output's length become symbolic.
    On 3000 frames the graph computes what it did (the slice is the whole table); the service gives
    short utterances a shorter window (`encoderWindowSamples` in workers/engines/whisper/decoding-options.ts).
    """
    import onnx
    from onnx import helper, numpy_helper

    external = path.with_name(path.name + "_data").exists()
    model = onnx.load(str(path))
    graph = model.graph
    tables = {i.name for i in graph.initializer if len(i.dims) == 2 and i.dims[0] == positions}
    adds = [n for n in graph.node if n.op_type == "Add" and any(i in tables for i in n.input)]
    if len(adds) != 1:
        raise SystemExit(f"expected one Add of the positional table in the encoder, found {len(adds)}")
    add = adds[0]
    k = next(j for j, i in enumerate(add.input) if i in tables)
    table, hidden = add.input[k], add.input[1 - k]
    graph.initializer.extend([numpy_helper.from_array(np.array([0], dtype=np.int64), "positions_start"), numpy_helper.from_array(np.array([0], dtype=np.int64), "positions_axis")])
    at = list(graph.node).index(add)
    graph.node.insert(at, helper.make_node("Shape", [hidden], ["positions_count"], start=1, end=2))
    graph.node.insert(at + 1, helper.make_node("Slice", [table, "positions_start", "positions_count", "positions_axis"], ["positions_used"]))
    add.input[k] = "positions_used"
    graph.input[0].type.tensor_type.shape.dim[2].dim_param = "encoder_frames"
    graph.output[0].type.tensor_type.shape.dim[1].dim_param = "encoder_positions"
    save_model(model, path, external)
    log(f"encoder takes a variable number of frames (at most {2 * positions})")


# The longest start-of-transcript sequence: <|startoftranscript|>, language, task, <|notimestamps|>.
SOT_SEQUENCE_MAX = 4


def last_positions_logits(path: Path, keep: int = SOT_SEQUENCE_MAX) -> None:
    """Makes the merged decoder's first call (no past) give the logits of its last `keep` positions only (in place).

    The exporter projects every input position onto the vocabulary. A first call with a prompt of
    previous text (up to 223 tokens) then spends most of its time on logits nobody reads: a decode
    needs the row of the last position (the first token's distribution) and the row of
    <|startoftranscript|> (the no-speech probability), which is among the last `keep` positions,
    the start-of-transcript sequence being at most that long. The hidden states are sliced to those
    positions before the projection; calls with a past (one position each) are unchanged. The
    logits' sequence dimension becomes `logits_positions`.
    """
    import onnx
    from onnx import helper, numpy_helper

    external = path.with_name(path.name + "_data").exists()
    model = onnx.load(str(path))
    ifs = [n for n in model.graph.node if n.op_type == "If"]
    if len(ifs) != 1:
        raise SystemExit(f"{path.name}: expected one If node (a merged decoder), found {len(ifs)}")
    first = next(a.g for a in ifs[0].attribute if a.name == "else_branch")  # use_cache_branch false
    producer = {o: n for n in first.node for o in n.output}
    proj = producer.get("logits")
    if proj is None or proj.op_type != "MatMul":
        raise SystemExit(f"{path.name}: the first call's logits do not come from one MatMul")
    first.initializer.extend([
        numpy_helper.from_array(np.array([-keep], dtype=np.int64), "logits_positions_start"),
        numpy_helper.from_array(np.array([np.iinfo(np.int64).max], dtype=np.int64), "logits_positions_end"),
        numpy_helper.from_array(np.array([1], dtype=np.int64), "logits_positions_axis"),
    ])
    at = list(first.node).index(proj)
    first.node.insert(at, helper.make_node("Slice", [proj.input[0], "logits_positions_start", "logits_positions_end", "logits_positions_axis"], ["logits_positions_hidden"]))
    proj.input[0] = "logits_positions_hidden"
    for graph in (model.graph, first):
        for out in graph.output:
            if out.name == "logits":
                out.type.tensor_type.shape.dim[1].dim_param = "logits_positions"
    save_model(model, path, external)
    log(f"the decoder's first call gives the logits of its last {keep} positions")


CROSS_INT8 = "_cross_int8"


def cross_attention_int8(src: Path, dst: Path) -> None:
    """Writes the fp32 merged decoder with its cross-attention key and value projections in signed int8.

    A window's first decoder call projects the encoder's output (1500 positions on 30 s) onto every
    layer's cross-attention keys and values: tiny.en 1.8 G multiply-adds, base 4.7 G, most of a
    first call and paid by every decode. Those products take the encoder's own treatment, onnxruntime's
    dynamic quantization (signed 8-bit weights with a zero point, one scale per output column;
    the encoder's output quantized at each call); every other operator, the steps' included, stays fp32.
    Only the first-call branch reads these weights.
    """
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    model = onnx.load(str(src))
    ifs = [n for n in model.graph.node if n.op_type == "If"]
    if len(ifs) != 1:
        raise SystemExit(f"{src.name}: expected one If node (a merged decoder), found {len(ifs)}")
    first = next(a.g for a in ifs[0].attribute if a.name == "else_branch")  # use_cache_branch false
    names = [n.name for n in first.node if n.op_type == "MatMul" and n.input[0] == "encoder_hidden_states"]
    layers = sum(1 for i in model.graph.input if re.fullmatch(r"past_key_values\.\d+\.encoder\.key", i.name))
    if len(names) != 2 * layers or not all(names):
        raise SystemExit(f"{src.name}: expected a named key and value projection of the encoder output per layer ({layers} layers), found {names}")
    del model
    t0 = time.time()
    quantize_dynamic(
        str(src),
        str(dst),
        weight_type=QuantType.QInt8,
        per_channel=True,
        nodes_to_quantize=names,
        extra_options={"EnableSubgraph": True, "MatMulConstBOnly": True, "WeightSymmetric": False},
    )
    quantized = onnx.load(str(dst))
    branch = next(a.g for a in next(n for n in quantized.graph.node if n.op_type == "If").attribute if a.name == "else_branch")
    integer = sum(1 for n in branch.node if n.op_type == "MatMulInteger")
    if integer != len(names):
        raise SystemExit(f"{dst.name}: the quantizer left {integer} of {len(names)} cross-attention projections in int8")
    log(f"{dst.name}: {integer} cross-attention projections in signed int8 ({time.time() - t0:.0f} s)")


WEIGHT_INT8 = "_w8"
WEIGHT_INT8_BLOCK = 32


def weight_int8_decoder(src: Path, dst: Path) -> None:
    """Writes the merged decoder with its layers' weight matrices in 8 bits, blocks of 32 (MatMulNBits).

    A decoder step multiplies one token's hidden state (a few rows for a beam) by every weight
    matrix: its time goes to reading the weights. Here each matrix product of a layer with a
    constant weight, in either branch, becomes onnxruntime's MatMulNBits, but for the first call's
    key and value projections of the encoder's output (1500 rows at once, where MatMulNBits is no
    faster than fp32): unsigned 8-bit weights
    with a scale and a zero point per block of 32 input rows of each column (onnxruntime's own block
    quantizer), four times fewer bytes to read than fp32, and `accuracy_level` 4 (the activations
    quantized per block at each call, products in 8-bit integers). Unlike the dynamic int8 decoder
    (`_quantized`, one scale per matrix for the activations), the blocks keep small activations
    apart from large ones. The vocabulary projection (the transposed token embeddings) stays fp32:
    its logits choose the words, and in 8 bits it cost words on `bench/wer` (bench/README.md).
    """
    import onnx
    from onnx import helper, numpy_helper
    from onnxruntime.capi._pybind_state import quantize_matmul_8bits

    model = onnx.load(str(src))
    ifs = [n for n in model.graph.node if n.op_type == "If"]
    if len(ifs) != 1:
        raise SystemExit(f"{src.name}: expected one If node (a merged decoder), found {len(ifs)}")
    weights = {t.name: t for t in model.graph.initializer}
    transposed = {n.output[0]: n.input[0] for n in model.graph.node if n.op_type == "Transpose" and n.input[0] in weights}
    made: dict[str, tuple[int, int]] = {}

    def quantized(name: str, w: np.ndarray) -> tuple[int, int]:
        if name not in made:
            k, n = w.shape
            blocks = (k + WEIGHT_INT8_BLOCK - 1) // WEIGHT_INT8_BLOCK
            packed = np.zeros((n, blocks, WEIGHT_INT8_BLOCK), dtype=np.uint8)
            zero = np.zeros((n, blocks), dtype=np.uint8)
            scales = np.zeros((n, blocks), dtype=np.float32)
            quantize_matmul_8bits(packed, np.ascontiguousarray(w, dtype=np.float32), scales, zero, WEIGHT_INT8_BLOCK, n, k, False)
            model.graph.initializer.extend([numpy_helper.from_array(packed, f"{name}_w8"), numpy_helper.from_array(scales, f"{name}_w8_scales"),
                                            numpy_helper.from_array(zero, f"{name}_w8_zero_points")])
            made[name] = (k, n)
        return made[name]

    replaced = 0
    for branch in (a.g for a in ifs[0].attribute if a.type == onnx.AttributeProto.GRAPH):
        local = {t.name: t for t in branch.initializer}
        for node in [n for n in branch.node if n.op_type == "MatMul"]:
            b = node.input[1]
            if b in transposed or node.input[0] == "encoder_hidden_states":
                continue  # the vocabulary projection; the first call's projections of the encoder output (1500 rows: no faster so)
            source = weights.get(b, local.get(b))
            if source is None:
                continue  # a product of two activations (attention)
            w = numpy_helper.to_array(source).astype(np.float32)
            if w.ndim != 2:
                continue
            k, n = quantized(b, w)
            at = list(branch.node).index(node)
            branch.node.remove(node)
            branch.node.insert(at, helper.make_node(
                "MatMulNBits", [node.input[0], f"{b}_w8", f"{b}_w8_scales", f"{b}_w8_zero_points"], list(node.output),
                name=f"{node.name or b}_w8", domain="com.microsoft", K=k, N=n, bits=8, block_size=WEIGHT_INT8_BLOCK, accuracy_level=4))
            replaced += 1
    if replaced == 0:
        raise SystemExit(f"{src.name}: no weight matrix to quantize")
    # the fp32 weights now unread go
    read = {x for n in model.graph.node for x in n.input}
    read |= {x for a in ifs[0].attribute if a.type == onnx.AttributeProto.GRAPH for n in a.g.node for x in n.input}
    kept = [t for t in model.graph.initializer if t.name in read]
    del model.graph.initializer[:]
    model.graph.initializer.extend(kept)
    if not any(o.domain == "com.microsoft" for o in model.opset_import):
        model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    save_model(model, dst, False)
    log(f"{dst.name}: {replaced} matrix products on {len(made)} weight matrices in 8-bit blocks")


def shared_projection(path: Path) -> None:
    """Moves the merged decoder's Transposes of an outer initializer out of its If branches (in place).

    The exporter's output projection is MatMul(hidden, Transpose(token embeddings)) in each branch
    of the merged decoder. onnxruntime folds a constant Transpose into an initializer of the graph
    that holds it, so each branch got its own transposed copy of the largest matrix of the model
    (tiny.en: 80 MB, base: 106 MB). One Transpose in the main graph, read by both branches, is
    folded once; the file does not grow, and the outputs are the same.
    """
    import onnx
    from onnx import helper

    external = path.with_name(path.name + "_data").exists()
    model = onnx.load(str(path))
    ifs = [n for n in model.graph.node if n.op_type == "If"]
    if len(ifs) != 1:
        raise SystemExit(f"{path.name}: expected one If node (a merged decoder), found {len(ifs)}")
    outer = {t.name for t in model.graph.initializer}
    hoisted: dict[str, str] = {}
    for branch in (a.g for a in ifs[0].attribute if a.type == onnx.AttributeProto.GRAPH):
        for node in [n for n in branch.node if n.op_type == "Transpose" and n.input[0] in outer]:
            perm = next((list(a.ints) for a in node.attribute if a.name == "perm"), [])
            if perm not in ([], [1, 0]):
                continue
            name = hoisted.setdefault(node.input[0], f"{node.input[0]}_transposed_shared")
            for consumer in branch.node:
                for i, x in enumerate(consumer.input):
                    if x == node.output[0]:
                        consumer.input[i] = name
            branch.node.remove(node)
    for src, name in hoisted.items():
        model.graph.node.insert(0, helper.make_node("Transpose", [src], [name], name=f"{name}_node"))
    if hoisted:
        save_model(model, path, external)
    log(f"{path.name}: {len(hoisted)} transposed initializer(s) shared by the decoder's branches")


# ----------------------------------------------------------------------------------------------------- verify


def normalize(text: str) -> list[str]:
    return re.sub(r"[^\w\s']", " ", text.lower()).split()


def wer(ref: list[str], hyp: list[str]) -> float:
    dp = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        prev, dp[0] = dp[0], i
        for j, h in enumerate(hyp, 1):
            prev, dp[j] = dp[j], min(dp[j] + 1, dp[j - 1] + 1, prev + (r != h))
    return dp[len(hyp)] / max(1, len(ref))


def decode_onnx(out: Path, work: Path, audio: np.ndarray, language: str | None, encoder: str, decoder: str) -> str:
    """Greedy decode through the exported files with onnxruntime (optimum's ORT seq2seq model)."""
    from optimum.onnxruntime import ORTModelForSpeechSeq2Seq
    from transformers import GenerationConfig, WhisperFeatureExtractor
    from faster_whisper.tokenizer import Tokenizer
    import tokenizers

    # optimum finds the merged decoder by its standard name only: show it one variant at a time
    view = work / f"verify{encoder}{decoder}"
    shutil.rmtree(view, ignore_errors=True)
    view.mkdir(parents=True)
    for f in out.iterdir():
        if f.suffix == ".json":
            (view / f.name).symlink_to(f.resolve())
    for name, suffix in (("encoder_model", encoder), ("decoder_model_merged", decoder)):
        (view / f"{name}.onnx").symlink_to((out / f"{name}{suffix}.onnx").resolve())
    model = ORTModelForSpeechSeq2Seq.from_pretrained(str(view), use_merged=True, use_cache=True, provider="CPUExecutionProvider")
    model.generation_config = GenerationConfig.from_pretrained(str(view))
    fe = WhisperFeatureExtractor.from_pretrained(str(view))
    feats = fe(audio, sampling_rate=16000, return_tensors="pt").input_features
    kwargs = {"language": language, "task": "transcribe"} if model.generation_config.is_multilingual else {}
    ids = model.generate(feats, max_new_tokens=200, num_beams=1, do_sample=False, **kwargs)[0].tolist()
    multi = model.generation_config.is_multilingual
    tok = Tokenizer(tokenizers.Tokenizer.from_file(str(out / "tokenizer.json")), multi, task="transcribe" if multi else None, language=language if multi else None)
    return tok.decode([i for i in ids if i < tok.eot]).strip()


def compare_encoders(ct2_dir: Path, out: Path, audio: np.ndarray) -> float:
    """Largest absolute difference between CTranslate2's and the ONNX encoder's outputs on the same features."""
    import ctranslate2
    import onnxruntime as ort
    from transformers import WhisperFeatureExtractor

    fe = WhisperFeatureExtractor.from_pretrained(str(out))
    feats = fe(audio, sampling_rate=16000, return_tensors="np").input_features.astype(np.float32)
    ct2 = ctranslate2.models.Whisper(str(ct2_dir), device="cpu", compute_type="float32", intra_threads=2)
    ref = np.array(ct2.encode(ctranslate2.StorageView.from_array(feats), to_cpu=True))
    del ct2
    sess = ort.InferenceSession(str(out / "encoder_model.onnx"), providers=["CPUExecutionProvider"])
    got = sess.run(None, {sess.get_inputs()[0].name: feats})[0]
    return float(np.max(np.abs(ref - got)) / max(1e-6, float(np.max(np.abs(ref)))))


def check_stages(out: Path, audio: np.ndarray) -> float:
    """Every encoder file's stages, chained, against the whole file on a window shorter than 30 s (as the service encodes); exits on a difference."""
    from transformers import WhisperFeatureExtractor

    feats = WhisperFeatureExtractor.from_pretrained(str(out))(audio, sampling_rate=16000, return_tensors="np").input_features.astype(np.float32)
    worst = 0.0
    for variant in ("", "_quantized", "_int8"):
        diff = compare_stages(out / f"encoder_model{variant}.onnx", feats[:, :, : feats.shape[2] // 2])
        log(f"encoder_model{variant}: stages vs the whole file, max absolute difference {diff:.2e}")
        if diff > 1e-5:
            raise SystemExit(f"verification failed: the stages of encoder_model{variant}.onnx differ from it by {diff:.2e}")
        worst = max(worst, diff)
    return worst


def alignment_tokens(out: Path, text: str, language: str | None) -> list[int]:
    """The sequence the service aligns: start of transcript, <|notimestamps|>, the text, end of text."""
    from faster_whisper.tokenizer import Tokenizer
    import tokenizers

    multi = json.loads((out / "generation_config.json").read_text())["is_multilingual"]
    tok = Tokenizer(tokenizers.Tokenizer.from_file(str(out / "tokenizer.json")), multi, task="transcribe" if multi else None, language=(language or "en") if multi else None)
    return [*tok.sot_sequence, tok.no_timestamps, *tok.encode(" " + text.strip()), tok.eot]


def verify_alignment(out: Path, work: Path, audio: np.ndarray, text: str, language: str | None) -> float:
    diff = check_alignment(out, work, audio, alignment_tokens(out, text, language))
    log(f"{ALIGNMENT}: weights vs transformers' cross-attentions, max absolute difference {diff:.2e}")
    if diff > 1e-4:
        raise SystemExit(f"verification failed: the alignment decoder's weights differ from transformers' by {diff:.2e}")
    return diff


def verify(ct2_dir: Path, out: Path, work: Path, audio_path: Path | None, language: str | None, max_wer: float) -> dict:
    from faster_whisper import WhisperModel, decode_audio

    if audio_path is None:
        # no clip at hand: a deterministic chirp still exercises every encoder weight
        t = np.arange(16000 * 5, dtype=np.float32) / 16000
        chirp = (0.3 * np.sin(2 * np.pi * (200 + 300 * t) * t)).astype(np.float32)
        diff = compare_encoders(ct2_dir, out, chirp)
        log(f"encoder outputs vs CTranslate2 (chirp): max relative difference {diff:.2e}")
        if diff > 1e-3:
            raise SystemExit(f"verification failed: encoder outputs differ from CTranslate2's by {diff:.2e}")
        return {"clip": None, "encoder_max_rel_diff": diff, "encoder_stages_max_abs_diff": check_stages(out, chirp),
                "alignment_max_abs_diff": verify_alignment(out, work, chirp, "And so my fellow Americans.", language)}
    audio = decode_audio(str(audio_path), sampling_rate=16000)
    diff = compare_encoders(ct2_dir, out, audio)
    log(f"encoder outputs vs CTranslate2: max relative difference {diff:.2e}")
    if diff > 1e-3:
        raise SystemExit(f"verification failed: encoder outputs differ from CTranslate2's by {diff:.2e}")
    ref_model = WhisperModel(str(ct2_dir), device="cpu", compute_type="float32", cpu_threads=2)
    segments, _ = ref_model.transcribe(audio, beam_size=1, language=language, without_timestamps=True, temperature=0.0, vad_filter=False)
    reference = " ".join(s.text.strip() for s in segments)
    del ref_model
    result = {"clip": audio_path.name, "encoder_max_rel_diff": diff, "encoder_stages_max_abs_diff": check_stages(out, audio), "faster_whisper": reference,
              "alignment_max_abs_diff": verify_alignment(out, work, audio, reference, language)}
    log(f"faster-whisper (CTranslate2 original): {reference}")
    ok = True
    variants = (
        ("onnx_fp32", "", ""),
        ("onnx_int8", "_quantized", "_quantized"),
        ("onnx_int8_signed_encoder", "_int8", ""),
        ("onnx_int8_signed_encoder_cross_int8_decoder", "_int8", CROSS_INT8),
        ("onnx_int8_signed_encoder_w8_decoder", "_int8", WEIGHT_INT8),
    )
    for key, encoder, decoder in variants:
        if not (out / f"decoder_model_merged{decoder}.onnx").exists():
            continue
        text = decode_onnx(out, work, audio, language, encoder, decoder)
        w = wer(normalize(reference), normalize(text))
        result[key], result[f"{key}_wer"] = text, round(w, 4)
        log(f"{key}: {text}  (WER vs faster-whisper {w:.3f})")
        ok &= w <= max_wer
    if not ok:
        raise SystemExit(f"verification failed: the converted model's text differs from faster-whisper's by more than WER {max_wer}")
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", type=Path, action="append", required=True, help="unpacked package dir(s) with the CTranslate2 files")
    ap.add_argument("--out", type=Path, required=True, help="output directory (onnx-community layout)")
    ap.add_argument("--work", type=Path, help="scratch directory (default: <out>.work, removed on success)")
    ap.add_argument("--audio", type=Path, help="speech clip decoded by both models to verify the conversion (without one, only the encoders are compared)")
    ap.add_argument("--language", default="en", help="language of the clip (default en)")
    ap.add_argument("--max-wer", type=float, default=0.05, help="largest word error rate allowed against faster-whisper")
    ap.add_argument("--cross-int8-decoder", action="store_true", help=f"also write decoder_model_merged{CROSS_INT8}.onnx (signed-int8 cross-attention projections)")
    ap.add_argument("--weight-int8-decoder", action="store_true", help=f"also write decoder_model_merged{WEIGHT_INT8}.onnx (the layers' weight matrices in 8-bit blocks)")
    args = ap.parse_args()

    t0 = time.time()
    work = args.work or args.out.with_name(args.out.name + ".work")
    if args.out.exists():
        shutil.rmtree(args.out)
    shutil.rmtree(work, ignore_errors=True)
    ct2_dir = assemble_ct2_dir(args.source, work / "ct2")
    export_onnx(ct2_dir, work, args.out, args.cross_int8_decoder, args.weight_int8_decoder)
    result = verify(ct2_dir, args.out, work, args.audio, args.language, args.max_wer)
    result["seconds"] = round(time.time() - t0, 1)
    result["files"] = {p.name: p.stat().st_size for p in sorted(args.out.iterdir())}
    (args.out / "conversion.json").write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    shutil.rmtree(work, ignore_errors=True)
    log(f"done in {result['seconds']} s: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
