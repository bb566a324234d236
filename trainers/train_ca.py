"""GRPO with LoRA for the CA seat (RL-ADA's CA gym, trained by TRL): K = 8, β = 0.05, cosine
learning-rate schedule, half the DA's context and completion lengths (RL-ADA §3.5, Appendix B.2).

    npx sparring gym export R1 --gym 2 --out gym2.jsonl --db lab.db
    npx sparring env serve --role CA --opponent DA1 --db lab.db
    python trainers/train_ca.py --data gym2.jsonl --out ca1-lora

The reward is the server's r_CA = r_format + r_realism + r_conceal + r_inv-DA of the rollout.
The paper's CA is Qwen2.5-7B; --model picks another.
"""
from __future__ import annotations

import argparse
import json
import os

from datasets import Dataset
from peft import LoraConfig
from trl import GRPOConfig, GRPOTrainer

from trl_adapter import SparringCaEnv, episode_reward, term


def load_points(path: str) -> Dataset:
    rows = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    rows = [r for r in rows if r["role"] == "CA"]
    return Dataset.from_list([
        {"prompt": r["prompt"]["messages"], "seed": r["reset"]["seed"], "scenario": r["reset"]["scenario"], "replay": r["reset"]["replay"]}
        for r in rows
    ])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", required=True, help="a `sparring gym export` JSONL file (role CA)")
    p.add_argument("--model", default="Qwen/Qwen2.5-7B-Instruct")
    p.add_argument("--out", default="sparring-ca-lora")
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--url", default=None, help="the env server (else SPARRING_ENV_URL)")
    args = p.parse_args()
    if args.url:
        os.environ["SPARRING_ENV_URL"] = args.url
    os.environ.setdefault("SPARRING_MODEL_NAME", f"{args.model}+{os.path.basename(args.out)}")

    config = GRPOConfig(
        output_dir=args.out,
        max_steps=args.steps,
        learning_rate=2e-5,
        lr_scheduler_type="cosine",
        num_generations=8,  # K (CA)
        beta=0.05,  # tighter KL (CA)
        epsilon=0.2,
        per_device_train_batch_size=16,
        gradient_accumulation_steps=1,
        max_completion_length=256,  # half the DA's
        bf16=True,
        use_vllm=True,
        vllm_mode="colocate",
        logging_steps=1,
        reward_weights=[1.0, 0.0, 0.0, 0.0],
    )
    trainer = GRPOTrainer(
        model=args.model,
        args=config,
        train_dataset=load_points(args.data),
        environment_factory=SparringCaEnv,
        reward_funcs=[episode_reward, term("realism"), term("conceal"), term("inv_da")],
        peft_config=LoraConfig(r=16, lora_alpha=32, lora_dropout=0.05, target_modules="all-linear", task_type="CAUSAL_LM"),
    )
    trainer.train()
    trainer.save_model(args.out)


if __name__ == "__main__":
    main()
