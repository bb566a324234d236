"""Supervised fine-tuning on the lab's own demonstrations, by TRL 1.13's SFTTrainer: teaches a model
the trained form (models/llm/da-messages.ts) before GRPO, so a small or fresh model emits calls that
parse and the managed gym's rollouts and the GGUF's matches finish.

The data is `sparring export RUN|MATCH` JSONL (one episode a line: `messages` with tool calls,
`tools`, `metadata`), e.g. the episodes of a match played by the scripted DA. The loss is on the
assistant's turns only (TRL's `assistant_only_loss`, with its training template of Qwen2.5's).

    python trainers/sft_run.py --data demos.jsonl --model MODEL_DIR --out OUT_DIR [--epochs 8] [--lr 3e-3]

Prints one JSON line per logged step (`{"event": "log", "step", "loss", ...}`), then
`{"event": "done", "out", "examples", "seconds"}`. Writes the whole model (no adapter) to OUT_DIR.
"""
from __future__ import annotations

import argparse
import json
import os
import time


def emit(event: str, **fields) -> None:
    print(json.dumps({"event": event, **fields}), flush=True)


def load_episodes(path: str, max_length: int | None):
    from datasets import Dataset, Features, Json, List

    rows = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                ep = json.loads(line)
            except json.JSONDecodeError as e:
                raise SystemExit(f"{path}:{n}: not JSON ({e.msg})")
            if not isinstance(ep.get("messages"), list) or not isinstance(ep.get("tools"), list):
                raise SystemExit(f"{path}:{n}: an episode needs `messages` and `tools` (a `sparring export` line)")
            rows.append({"messages": ep["messages"], "tools": ep["tools"]})
    if not rows:
        raise SystemExit(f"{path}: no episodes")
    # Each message and tool as JSON, row by row: Arrow would otherwise merge every call's arguments
    # into one struct, adding the other tools' argument names as nulls to each call.
    return Dataset.from_list(rows, features=Features({"messages": List(Json()), "tools": List(Json())}))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", required=True, help="`sparring export` JSONL")
    p.add_argument("--model", required=True, help="a Hugging Face model folder or id")
    p.add_argument("--out", required=True)
    p.add_argument("--epochs", type=float, default=8)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--batch", type=int, default=2)
    p.add_argument("--max-length", type=int, default=None, help="cut longer episodes (tokens)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()

    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    import torch
    from transformers import TrainerCallback
    from trl import SFTConfig, SFTTrainer

    data = load_episodes(args.data, args.max_length)
    cuda = torch.cuda.is_available()
    bf16 = cuda and torch.cuda.is_bf16_supported()

    class Progress(TrainerCallback):
        def on_log(self, _args, state, _control, logs=None, **_kw):
            logs = logs or {}
            if "train_runtime" not in logs:
                emit("log", step=state.global_step, max_steps=state.max_steps, loss=logs.get("loss"))

    t0 = time.monotonic()
    config = SFTConfig(
        output_dir=args.out,
        num_train_epochs=args.epochs,
        learning_rate=args.lr,
        per_device_train_batch_size=args.batch,
        assistant_only_loss=True,
        max_length=args.max_length,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=args.seed,
        bf16=bf16,
        fp16=cuda and not bf16,
        use_cpu=not cuda,
    )
    trainer = SFTTrainer(model=args.model, args=config, train_dataset=data, callbacks=[Progress()])
    trainer.train()
    trainer.save_model(args.out)
    trainer.processing_class.save_pretrained(args.out)
    emit("done", out=args.out, examples=len(data), seconds=round(time.monotonic() - t0, 1))


if __name__ == "__main__":
    main()
