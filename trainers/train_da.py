"""GRPO with LoRA on Qwen2.5-3B-Instruct for the DA seat (RL-ADA's DA gym, trained by TRL).

    npx sparring gym export R1 --gym 1 --out gym1.jsonl --db lab.db     # the gym's decision points
    npx sparring env serve --role DA --opponent CA1 --db lab.db          # the world (command printed by export)
    pip install -r trainers/requirements-trl.txt
    python trainers/train_da.py --data gym1.jsonl --out da1-lora

K = 16 generations per decision point and β = 0.04 (the paper preset's DA gym, core/coevolution/
run-config.ts paperGymDa: RL-ADA §3.5 and Appendix B), lr 1e-4, constant schedule, clip 0.2.
The reward is the server's: r_DA of the rollout from that decision point against the frozen CA.
Then serve the adapter (vLLM: --enable-lora --lora-modules da1=da1-lora) and register it.
"""
from __future__ import annotations

import argparse
import json
import os

from datasets import Dataset
from peft import LoraConfig
from trl import GRPOConfig, GRPOTrainer

from trl_adapter import SparringDaEnv, episode_reward, term


def load_points(path: str) -> Dataset:
    rows = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    rows = [r for r in rows if r["role"] == "DA"]
    return Dataset.from_list([
        {"prompt": r["prompt"]["messages"], "seed": r["reset"]["seed"], "scenario": r["reset"]["scenario"], "replay": r["reset"]["replay"]}
        for r in rows
    ])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", required=True, help="a `sparring gym export` JSONL file (role DA)")
    p.add_argument("--model", default="Qwen/Qwen2.5-3B-Instruct")
    p.add_argument("--out", default="sparring-da-lora")
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--url", default=None, help="the env server (else SPARRING_ENV_URL)")
    args = p.parse_args()
    if args.url:
        os.environ["SPARRING_ENV_URL"] = args.url
    os.environ.setdefault("SPARRING_MODEL_NAME", f"{args.model}+{os.path.basename(args.out)}")

    config = GRPOConfig(
        output_dir=args.out,
        max_steps=args.steps,
        learning_rate=1e-4,
        lr_scheduler_type="constant",
        num_generations=16,  # K (DA)
        beta=0.04,  # KL coefficient β (DA)
        epsilon=0.2,  # clip
        per_device_train_batch_size=16,
        gradient_accumulation_steps=1,
        max_completion_length=512,
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
        environment_factory=SparringDaEnv,
        reward_funcs=[episode_reward, term("format"), term("tool"), term("env_judge")],
        peft_config=LoraConfig(r=16, lora_alpha=32, lora_dropout=0.05, target_modules="all-linear", task_type="CAUSAL_LM"),
    )
    trainer.train()
    trainer.save_model(args.out)


if __name__ == "__main__":
    main()
