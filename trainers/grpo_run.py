"""GRPO with LoRA on one of Sparring's seats, by TRL 1.13 (`environment_factory`, trl_adapter.py):
what train_da.py, train_ca.py and Sparring's managed trainer (gym.<role>.trainer kind "trl") run.

- Settings: the role's defaults (RL-ADA Appendix B), then the gym's budget from a `job.json`
  (`--job`: steps, K, promptsPerStep, lr, klBeta, clipEps, lrSchedule), then the flags given.
- Device and precision from the machine: CUDA with bf16 where the GPU supports it (else fp16),
  else the CPU in fp32. vLLM generates only where it is installed and a GPU is there
  (`--vllm auto`, the default), or when asked (`--vllm on`, an error without it).
- The server (`--url`, else SPARRING_ENV_URL) and the model name stored with each episode
  (`--model-name`, else SPARRING_MODEL_NAME, else "<model>+<out folder>") are set before the
  first environment is made.
- `--merge`: after training, the LoRA adapter merged into the base and saved whole to OUT/merged
  (what the GGUF writer reads); `--gguf FILE` (implies `--merge`) also writes that merged model as
  one GGUF file (write_gguf.py, in this process: no second start of torch and transformers).
- Progress: one JSON line per logged step on stdout, `{"event": "log", "step", "max_steps",
  "loss", "reward", "kl", "steps_per_s", ...}`; after each batch of rollouts the rewards TRL was given,
  with the lab's id of each rollout's stored episode, `{"event": "rewards", "episodes": [{"id",
  "reward"}]}`; with `--gguf` the writer's `{"event": "gguf", "out", "bytes", "tensors", "vocab"}`;
  at the end `{"event": "done", "out", "merged", "gguf"}`.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

ROLE_DEFAULTS: dict[str, dict[str, Any]] = {
    # RL-ADA Appendix B: the DA's gym (K 16, β 0.04, lr 1e-4 constant), the CA's (K 8, β 0.05, cosine, half the lengths).
    "DA": {"model": "Qwen/Qwen2.5-3B-Instruct", "K": 16, "prompts": 1, "lr": 1e-4, "beta": 0.04, "clip": 0.2, "schedule": "constant", "completion": 512, "steps": 60},
    "CA": {"model": "Qwen/Qwen2.5-7B-Instruct", "K": 8, "prompts": 2, "lr": 2e-5, "beta": 0.05, "clip": 0.2, "schedule": "cosine", "completion": 256, "steps": 60},
}


def emit(event: str, **fields: Any) -> None:
    print(json.dumps({"event": event, **fields}), flush=True)


def load_points(path: str, role: str):
    from datasets import Dataset, Features, Json, List, Value

    rows = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    rows = [r for r in rows if r["role"] == role]
    if not rows:
        raise SystemExit(f"{path}: no decision points of role {role}")
    # The prompt as JSON, row by row: Arrow would otherwise merge every row's tool-call arguments
    # into one struct, adding the other tools' argument names as nulls to each call.
    features = Features(
        {"prompt": List(Json()), "seed": Value("int64"), "scenario": Value("string"), "replay": List(Value("string")), "opponent_replay": List(Value("string"))}
    )
    return Dataset.from_list(
        [
            {
                "prompt": r["prompt"]["messages"],
                "seed": r["reset"]["seed"],
                "scenario": r["reset"]["scenario"],
                "replay": r["reset"]["replay"],
                # Exports written before opponent_replay: the opponent plays the prefix itself.
                "opponent_replay": r["reset"].get("opponent_replay", []),
            }
            for r in rows
        ],
        features=features,
    )


def logged_episode_reward(environments, completions=None, **kw):
    """trl_adapter.episode_reward, each reward printed with its rollout's stored episode id (so the
    rewards GRPO trains on can be checked against the lab's r_DA / r_CA of the same episodes)."""
    import trl_adapter

    rewards = trl_adapter.episode_reward(environments, completions, **kw)
    emit("rewards", episodes=[{"id": i, "reward": r} for i, r in zip(trl_adapter.episode_ids(environments), rewards)])
    return rewards


logged_episode_reward.__name__ = "episode_reward"


def device_settings(vllm: str) -> dict[str, Any]:
    import torch

    cuda = torch.cuda.is_available()
    bf16 = cuda and torch.cuda.is_bf16_supported()
    try:
        import vllm  # noqa: F401

        has_vllm = True
    except ImportError:
        has_vllm = False
    if vllm == "on" and not (cuda and has_vllm):
        raise SystemExit("--vllm on: " + ("vLLM is not installed (pip install vllm)" if not has_vllm else "no CUDA GPU"))
    use_vllm = vllm == "on" or (vllm == "auto" and cuda and has_vllm)
    return {
        "device": "cuda" if cuda else "cpu",
        "bf16": bf16,
        "fp16": cuda and not bf16,
        "use_cpu": not cuda,
        "use_vllm": use_vllm,
        **({"vllm_mode": "colocate"} if use_vllm else {}),
    }


def exit_with_parent() -> None:
    """Under Sparring's managed trainer (SPARRING_PARENT_PID): end when the run's process is gone,
    so a run killed with kill -9 leaves no trainer behind (`run --resume` starts the gym again)."""
    pid = os.environ.get("SPARRING_PARENT_PID")
    if not pid:
        return
    import threading

    def watch() -> None:
        while True:
            time.sleep(1.0)
            try:
                os.kill(int(pid), 0)
            except OSError:
                os._exit(3)

    threading.Thread(target=watch, daemon=True).start()


def main(role: str, argv: list[str] | None = None) -> None:
    exit_with_parent()
    d = ROLE_DEFAULTS[role]
    p = argparse.ArgumentParser(description=f"GRPO with LoRA for the {role} seat (TRL {role} gym).")
    p.add_argument("--data", required=True, help=f"a `sparring gym export` JSONL file (role {role})")
    p.add_argument("--job", default=None, help="a gym job's job.json: its budget sets steps, K, lr, β, clip and the schedule")
    p.add_argument("--model", default=d["model"], help="a Hugging Face model id or folder")
    p.add_argument("--out", default=f"sparring-{role.lower()}-lora")
    p.add_argument("--steps", type=int, default=None)
    p.add_argument("--K", type=int, default=None, help="generations per decision point")
    p.add_argument("--prompts-per-step", type=int, default=None)
    p.add_argument("--lr", type=float, default=None)
    p.add_argument("--beta", type=float, default=None)
    p.add_argument("--max-completion-length", type=int, default=None)
    p.add_argument("--lora-r", type=int, default=16)
    p.add_argument("--lora-alpha", type=int, default=32)
    p.add_argument("--lora-dropout", type=float, default=0.05)
    p.add_argument("--url", default=None, help="the env server (else SPARRING_ENV_URL)")
    p.add_argument("--token", default=None, help="the env server's token (else SPARRING_ENV_TOKEN)")
    p.add_argument("--model-name", default=None, help="stored with each episode (else SPARRING_MODEL_NAME)")
    p.add_argument("--vllm", choices=["auto", "on", "off"], default="auto")
    p.add_argument("--merge", action="store_true", help="also save the merged model to OUT/merged")
    p.add_argument("--gguf", default=None, help="also write the merged model as this GGUF file (implies --merge)")
    p.add_argument("--gguf-type", choices=["f32", "f16"], default="f32")
    p.add_argument("--gguf-name", default=None, help="the model name inside the GGUF file")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    budget: dict[str, Any] = {}
    if args.job:
        with open(args.job, encoding="utf-8") as f:
            job = json.load(f)
        if job.get("role") not in (None, role):
            raise SystemExit(f"{args.job}: a {job.get('role')} gym, not {role}")
        budget = job.get("budget") or {}
    pick = lambda flag, key, default: flag if flag is not None else budget.get(key, default)  # noqa: E731
    steps = pick(args.steps, "steps", d["steps"])
    K = pick(args.K, "K", d["K"])
    prompts = pick(args.prompts_per_step, "promptsPerStep", d["prompts"])
    lr = pick(args.lr, "lr", d["lr"])
    beta = pick(args.beta, "klBeta", d["beta"])
    clip = budget.get("clipEps", d["clip"])
    schedule = budget.get("lrSchedule", d["schedule"])
    completion = args.max_completion_length or d["completion"]

    import trl_adapter

    trl_adapter.configure(url=args.url, token=args.token, model=args.model_name or os.environ.get("SPARRING_MODEL_NAME") or f"{os.path.basename(args.model.rstrip('/'))}+{os.path.basename(args.out.rstrip('/'))}")
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")

    from peft import LoraConfig
    from transformers import TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    dev = device_settings(args.vllm)
    emit("start", role=role, model=args.model, device=dev["device"], bf16=dev["bf16"], fp16=dev["fp16"], vllm=dev["use_vllm"], max_steps=steps, K=K, prompts_per_step=prompts, lr=lr, beta=beta)

    class Progress(TrainerCallback):
        def __init__(self) -> None:
            self.t0 = time.monotonic()

        def on_log(self, _args, state, _control, logs=None, **_kw):
            logs = logs or {}
            if "train_runtime" in logs:
                return
            elapsed = time.monotonic() - self.t0
            emit(
                "log",
                step=state.global_step,
                max_steps=state.max_steps,
                loss=logs.get("loss"),
                reward=logs.get("reward"),
                reward_std=logs.get("reward_std"),
                kl=logs.get("kl"),
                steps_per_s=state.global_step / elapsed if elapsed > 0 else None,
                elapsed_s=elapsed,
            )

    config = GRPOConfig(
        output_dir=args.out,
        max_steps=steps,
        learning_rate=lr,
        lr_scheduler_type=schedule,
        num_generations=K,
        beta=beta,
        epsilon=clip,
        per_device_train_batch_size=K * prompts,
        gradient_accumulation_steps=1,
        max_completion_length=completion,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=args.seed,
        reward_weights=[1.0, 0.0, 0.0, 0.0],
        bf16=dev["bf16"],
        fp16=dev["fp16"],
        use_cpu=dev["use_cpu"],
        use_vllm=dev["use_vllm"],
        **({"vllm_mode": dev["vllm_mode"]} if dev["use_vllm"] else {}),
    )
    env = trl_adapter.SparringDaEnv if role == "DA" else trl_adapter.SparringCaEnv
    if role == "DA":  # a reply of several calls or an unknown function reaches the world as the arena plays it
        trl_adapter.guard_replies({s["function"]["name"] for s in trl_adapter.server_tools(trl_adapter._setting("url", "SPARRING_ENV_URL", "http://127.0.0.1:7318"), trl_adapter._setting("token", "SPARRING_ENV_TOKEN", None))})
    terms = ["format", "tool", "env_judge"] if role == "DA" else ["realism", "conceal", "inv_da"]
    trainer = GRPOTrainer(
        model=args.model,
        args=config,
        train_dataset=load_points(args.data, role),
        environment_factory=env,
        reward_funcs=[logged_episode_reward, *[trl_adapter.term(t) for t in terms]],
        peft_config=LoraConfig(r=args.lora_r, lora_alpha=args.lora_alpha, lora_dropout=args.lora_dropout, target_modules="all-linear", task_type="CAUSAL_LM"),
        callbacks=[Progress()],
    )
    trainer.train()
    trainer.save_model(args.out)
    merged = None
    if args.merge or args.gguf:
        merged = os.path.join(args.out, "merged")
        model = trainer.model.merge_and_unload() if hasattr(trainer.model, "merge_and_unload") else trainer.model
        model.save_pretrained(merged)
        trainer.processing_class.save_pretrained(merged)
    if args.gguf:
        import write_gguf

        emit("gguf", **write_gguf.write(merged, args.gguf, args.gguf_type, args.gguf_name))
    emit("done", out=args.out, merged=merged, gguf=args.gguf)
