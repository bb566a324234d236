"""GRPO with LoRA for the CA seat (RL-ADA's CA gym, trained by TRL): K = 8, β = 0.05, cosine
learning-rate schedule, half the DA's completion length (RL-ADA §3.5, Appendix B.2), or the gym's
budget from --job.

    npx sparring gym export R1 --gym 2 --out gym2.jsonl --db lab.db
    npx sparring env serve --role CA --opponent DA1 --db lab.db
    python trainers/train_ca.py --data gym2.jsonl --out ca1-lora

The reward is the server's r_CA = r_format + r_realism + r_conceal + r_inv-DA of the rollout.
The paper's CA is Qwen2.5-7B; --model picks another. Device, precision and vLLM are detected (grpo_run.py).
"""
from grpo_run import main

if __name__ == "__main__":
    main("CA")
