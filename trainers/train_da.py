"""GRPO with LoRA on Qwen2.5-3B-Instruct for the DA seat (RL-ADA's DA gym, trained by TRL).

    npx sparring gym export R1 --gym 1 --out gym1.jsonl --db lab.db     # the gym's decision points
    npx sparring env serve --role DA --opponent CA1 --db lab.db          # the world (command printed by export)
    pip install -r trainers/requirements.txt
    python trainers/train_da.py --data gym1.jsonl --out da1-lora [--job gym-jobs/R1-gym1/job.json]

K = 16 generations per decision point and β = 0.04 (the paper preset's DA gym, core/coevolution/
run-config.ts paperGymDa: RL-ADA §3.5 and Appendix B), lr 1e-4, constant schedule, clip 0.2, or the
gym's budget from --job. The reward is the server's: r_DA of the rollout from that decision point
against the frozen CA. Device, precision and vLLM are detected (grpo_run.py). Then serve the adapter
(vLLM: --enable-lora --lora-modules da1=da1-lora) or pass --merge for a whole model, and register it.
"""
from grpo_run import main

if __name__ == "__main__":
    main("DA")
