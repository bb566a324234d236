"""A Hugging Face Qwen2 model folder (a merged checkpoint: config.json, safetensors, tokenizer) as one
GGUF file that llama.cpp (node-llama-cpp 3.21.1) loads: architecture "qwen2", llama.cpp's tensor
names, the BPE tokenizer ("gpt2" model, "qwen2" pre-tokenizer, merges, token types) and the chat
template, written with the `gguf` package. Weights in F32 (`--type f16` halves the file).

    python trainers/write_gguf.py MODEL_DIR OUT.gguf [--type f32|f16] [--name NAME]

Prints one JSON line: the file, its size, tensors and vocabulary.
"""
from __future__ import annotations

import argparse
import json
import os

# transformers name (per layer: model.layers.N.<key>) -> llama.cpp name (blk.N.<value>)
LAYER_TENSORS = {
    "input_layernorm.weight": "attn_norm.weight",
    "self_attn.q_proj.weight": "attn_q.weight",
    "self_attn.q_proj.bias": "attn_q.bias",
    "self_attn.k_proj.weight": "attn_k.weight",
    "self_attn.k_proj.bias": "attn_k.bias",
    "self_attn.v_proj.weight": "attn_v.weight",
    "self_attn.v_proj.bias": "attn_v.bias",
    "self_attn.o_proj.weight": "attn_output.weight",
    "post_attention_layernorm.weight": "ffn_norm.weight",
    "mlp.gate_proj.weight": "ffn_gate.weight",
    "mlp.up_proj.weight": "ffn_up.weight",
    "mlp.down_proj.weight": "ffn_down.weight",
}


def gguf_name(name: str) -> str:
    if name == "model.embed_tokens.weight":
        return "token_embd.weight"
    if name == "model.norm.weight":
        return "output_norm.weight"
    if name == "lm_head.weight":
        return "output.weight"
    parts = name.split(".")
    if parts[:2] == ["model", "layers"] and ".".join(parts[3:]) in LAYER_TENSORS:
        return f"blk.{parts[2]}.{LAYER_TENSORS['.'.join(parts[3:])]}"
    raise SystemExit(f"write_gguf: no llama.cpp name for tensor {name} (not a Qwen2 model?)")


def write(model_dir: str, out: str, type: str = "f32", name: str | None = None) -> dict:
    """Writes `model_dir` as the GGUF file `out` (see the module's doc); returns what `main` prints.
    Also called in the trainer's own process (grpo_run.py `--gguf`), which has torch and transformers loaded already."""
    if type not in ("f32", "f16"):
        raise ValueError(f"GGUF type {type!r}: f32 or f16")
    args = argparse.Namespace(model_dir=model_dir, out=out, type=type, name=name)

    import gguf
    import numpy as np
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    cfg = AutoConfig.from_pretrained(args.model_dir)
    if cfg.model_type != "qwen2":
        raise SystemExit(f"{args.model_dir}: model_type {cfg.model_type!r}; this writer knows qwen2")
    tok = AutoTokenizer.from_pretrained(args.model_dir)
    model = AutoModelForCausalLM.from_pretrained(args.model_dir, dtype=torch.float32)
    state = model.state_dict()
    if "lm_head.weight" not in state or cfg.tie_word_embeddings:
        state["lm_head.weight"] = state["model.embed_tokens.weight"]

    w = gguf.GGUFWriter(args.out, "qwen2")
    w.add_name(args.name or os.path.basename(os.path.normpath(args.model_dir)))
    w.add_context_length(cfg.max_position_embeddings)
    w.add_embedding_length(cfg.hidden_size)
    w.add_block_count(cfg.num_hidden_layers)
    w.add_feed_forward_length(cfg.intermediate_size)
    w.add_head_count(cfg.num_attention_heads)
    w.add_head_count_kv(cfg.num_key_value_heads)
    rope = getattr(cfg, "rope_theta", None) or (getattr(cfg, "rope_parameters", None) or {}).get("rope_theta", 10000.0)
    w.add_rope_freq_base(float(rope))
    w.add_layer_norm_rms_eps(cfg.rms_norm_eps)
    w.add_file_type(gguf.LlamaFileType.ALL_F32 if args.type == "f32" else gguf.LlamaFileType.MOSTLY_F16)

    # Tokenizer: the byte-level BPE vocabulary in id order, its merges, and which tokens are control tokens.
    vocab_size = cfg.vocab_size
    ids = tok.get_vocab()
    by_id = {i: t for t, i in ids.items()}
    special = set(tok.all_special_tokens)
    added = {t for t in tok.get_added_vocab()}
    tokens, types = [], []
    for i in range(vocab_size):
        t = by_id.get(i)
        if t is None:
            tokens.append(f"[PAD{i}]")
            types.append(gguf.TokenType.UNUSED)
        else:
            tokens.append(t)
            types.append(gguf.TokenType.CONTROL if t in special else gguf.TokenType.USER_DEFINED if t in added else gguf.TokenType.NORMAL)
    tj = json.loads(tok.backend_tokenizer.to_str())
    merges = [m if isinstance(m, str) else " ".join(m) for m in tj["model"]["merges"]]
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("qwen2")
    w.add_token_list(tokens)
    w.add_token_types(types)
    w.add_token_merges(merges)
    w.add_eos_token_id(tok.eos_token_id)
    if tok.pad_token_id is not None:
        w.add_pad_token_id(tok.pad_token_id)
    w.add_bos_token_id(tok.pad_token_id if tok.bos_token_id is None else tok.bos_token_id)
    w.add_add_bos_token(False)
    if tok.chat_template:
        w.add_chat_template(tok.chat_template)

    dtype = np.float32 if args.type == "f32" else np.float16
    count = 0
    for name, t in state.items():
        data = t.detach().to(torch.float32).numpy()
        # Norms and biases stay F32 (llama.cpp wants them so); matrices take the file's type.
        w.add_tensor(gguf_name(name), data.astype(dtype if data.ndim == 2 else np.float32))
        count += 1
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return {"out": args.out, "bytes": os.path.getsize(args.out), "tensors": count, "vocab": vocab_size}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("model_dir")
    p.add_argument("out")
    p.add_argument("--type", choices=["f32", "f16"], default="f32")
    p.add_argument("--name", default=None)
    args = p.parse_args()
    print(json.dumps(write(args.model_dir, args.out, args.type, args.name)))


if __name__ == "__main__":
    main()
