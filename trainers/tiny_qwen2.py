"""A tiny Qwen2 model for tests, made here from nothing (no download): a byte-level BPE tokenizer
trained on the lab's utterance bank and prompts, with Qwen2.5's chat template (the one TRL ships,
`trl.chat_template_utils.qwen2_5_chat_template`, so TRL parses its tool calls as Qwen2.5's), and a
Qwen2ForCausalLM with random weights from a small config.

    python trainers/tiny_qwen2.py OUT_DIR [--vocab 1024] [--hidden 64] [--layers 2] [--seed 0] [--tokenizer-only]
"""
from __future__ import annotations

import argparse
import glob
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
# Qwen2.5's tool-call markers; single tokens there, single tokens here.
ADDED = ["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>"]


def corpus() -> list[str]:
    """The texts the tokenizer learns from: the utterance bank, the prompts, JSON of the tool specs' words."""
    texts: list[str] = []
    with open(os.path.join(ROOT, "assets", "domains", "banking", "utterances.json"), encoding="utf-8") as f:
        texts += [u["text"] for u in json.load(f)["utterances"]]
    for p in sorted(glob.glob(os.path.join(ROOT, "assets", "prompts", "*.txt"))):
        with open(p, encoding="utf-8") as f:
            texts.append(f.read())
    # The shapes a DA's calls and results take, so JSON punctuation merges into few tokens.
    texts += ['{"name": "lookup_account", "arguments": {"thinking": "verify", "phone": "+1 555 123 4567"}}'] * 20
    texts += ['{"ok": true, "tool": "get_transactions", "data": {"transactions": []}}', '{"customer": "Thanks."}', '{"call_ended": true}'] * 20
    return texts


def make_tokenizer(vocab: int = 1024):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast
    from trl.chat_template_utils import qwen2_5_chat_template

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab, special_tokens=SPECIAL, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(corpus(), trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        additional_special_tokens=["<|im_start|>"],
        chat_template=qwen2_5_chat_template,
    )
    fast.add_tokens(ADDED)
    return fast


def make_model(tokenizer, seed: int = 0, hidden: int = 64, layers: int = 2):
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(seed)
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=hidden,
        intermediate_size=hidden * 3,
        num_hidden_layers=layers,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=4096,
        rope_theta=10000.0,
        tie_word_embeddings=True,
        bos_token_id=None,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    model = Qwen2ForCausalLM(config)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    return model


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out")
    p.add_argument("--vocab", type=int, default=1024)
    p.add_argument("--hidden", type=int, default=64, help="hidden size (a multiple of 4: 4 attention heads)")
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--tokenizer-only", action="store_true", help="write the tokenizer alone")
    args = p.parse_args()
    tok = make_tokenizer(args.vocab)
    if args.tokenizer_only:
        tok.save_pretrained(args.out)
        print(json.dumps({"out": args.out, "vocab": len(tok)}))
        return
    model = make_model(tok, args.seed, hidden=args.hidden, layers=args.layers)
    tok.save_pretrained(args.out)
    model.save_pretrained(args.out)
    print(json.dumps({"out": args.out, "vocab": len(tok), "params": sum(x.numel() for x in model.parameters())}))


if __name__ == "__main__":
    main()
