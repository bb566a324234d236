"""The trained form checked under a real chat template, for host/llm/trained-form.test.ts: one stored
episode rendered through the training path (TRL 1.13's environment_factory loop with this folder's
adapter, against a live `sparring env serve`) and through the playing path (the messages and tools
an LLM DA is sent, `models/llm/da-messages.ts`; an LLM CA, `models/llm/ca-messages.ts`), token for
token; and TRL's reward functions on rollouts that finish or stop, for the lab's stored rewards.

    python trainers/check_trained_form.py SPEC.json TOKENIZER_DIR

SPEC (written by the test): {"role" ("DA" when absent, or "CA"), "url", "seed", "scenario", "moves": [{"name", "arguments"}],
"play": [{"messages", "tools"}] (the DA's request before each move), "stop_after": n,
"stop_text": "...", "bad_replies": {"several": [call, call], "unknown": [call]}}. Prints one JSON
line: the token sequences' comparison per decision point, and each rollout's reward and stored
episode id (finished, stopped, and one per bad reply: the reply's tokens parsed by TRL's own
parser through `trl_adapter.guard_replies`, with the text that reached the world). A spec without
"stop_after" checks the finished rollout only (the CA's: its moves are `say` calls).
"""
from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from transformers import AutoTokenizer  # noqa: E402
from trl import GRPOTrainer  # noqa: E402

import trl_adapter  # noqa: E402


class _Shim:
    """What TRL's `_get_tool_suffix_ids` reads of a trainer (TRL's own method runs on it)."""

    def __init__(self, tok):
        self.processing_class = tok
        self._tokenizer = tok
        self.chat_template = None
        self.chat_template_kwargs = {}
        self._is_vlm = False


def generated_ids(tok, messages, tools, assistant) -> list[int]:
    """The tokens a model writes for `assistant` (the template's rendering of the message after the
    generation prompt, up to and including its end-of-turn token)."""
    before = tok.apply_chat_template(messages, tools=tools, add_generation_prompt=True, tokenize=False)
    after = tok.apply_chat_template(messages + [assistant], tools=tools, tokenize=False)
    assert after.startswith(before), "the template is not prefix-preserving"
    text = after[len(before) :]
    text = text[: text.rindex(tok.eos_token) + len(tok.eos_token)]
    return tok(text, add_special_tokens=False)["input_ids"]


def main() -> None:
    spec = json.load(open(sys.argv[1], encoding="utf-8"))
    tok = AutoTokenizer.from_pretrained(sys.argv[2])
    shim = _Shim(tok)
    trl_adapter.configure(url=spec["url"], model="trained-form-check")
    out: dict = {"points": [], "rollouts": []}

    # Training path: TRL's prompt (the row's prompt, the env's methods as tools), then per move the
    # model's tokens and TRL's tool-suffix tokens of the adapter's answer.
    env = trl_adapter.SparringCaEnv() if spec.get("role") == "CA" else trl_adapter.SparringDaEnv()
    methods = [getattr(env, s["function"]["name"]) for s in trl_adapter.server_tools(spec["url"], None)]
    row_prompt = env.session.reset(seed=spec["seed"], scenario=spec["scenario"])["observation"]["messages"]
    observation = env.reset(seed=spec["seed"], scenario=spec["scenario"], prompt=row_prompt)
    if observation is not None:  # what TRL 1.13 does with it (grpo_trainer.py, _generate_and_score_completions)
        row_prompt = row_prompt[:-1] + [{**row_prompt[-1], "content": row_prompt[-1]["content"] + observation}]
    ids = tok.apply_chat_template(row_prompt, tools=methods, add_generation_prompt=True, tokenize=True, return_dict=False)
    conversation = list(row_prompt)
    completion: list[dict] = []
    for k, move in enumerate(spec["moves"]):
        play = spec["play"][k]
        play_ids = tok.apply_chat_template(play["messages"], tools=play["tools"], add_generation_prompt=True, tokenize=True, return_dict=False)
        first = next((i for i, (a, b) in enumerate(zip(ids, play_ids)) if a != b), None)
        out["points"].append({"move": k, "train_tokens": len(ids), "play_tokens": len(play_ids), "identical": ids == play_ids, "first_difference": first})
        assistant = {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {"name": move["name"], "arguments": move["arguments"]}}]}
        ids = ids + generated_ids(tok, conversation, methods, assistant)
        result = getattr(env, move["name"])(**move["arguments"])
        tool_message = {"role": "tool", "name": move["name"], "content": result}
        ids = ids + GRPOTrainer._get_tool_suffix_ids(shim, [tool_message])
        conversation += [assistant, tool_message]
        completion += [assistant, tool_message]
    out["tokens_compared"] = len(ids)
    rewards = trl_adapter.episode_reward([env], completions=[completion])
    out["rollouts"].append({"kind": "finished", "reward": rewards[0], "episode_id": env.metadata.get("episode_id"), "done": env.done})
    if "stop_after" not in spec:
        print(json.dumps(out))
        return

    # A rollout that stops: the same moves up to `stop_after`, then a reply without a call.
    stopper = trl_adapter.SparringDaEnv()
    stopper.reset(seed=spec["seed"], scenario=spec["scenario"])
    completion = []
    for move in spec["moves"][: spec["stop_after"]]:
        result = getattr(stopper, move["name"])(**move["arguments"])
        completion += [{"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": move}]}, {"role": "tool", "name": move["name"], "content": result}]
    completion.append({"role": "assistant", "content": spec["stop_text"]})
    rewards = trl_adapter.episode_reward([stopper], completions=[completion])
    out["rollouts"].append({"kind": "stopped", "reward": rewards[0], "episode_id": stopper.metadata.get("episode_id"), "done": stopper.done})
    # Replies that are not one move: TRL's parser on the reply's tokens, through the adapter's guard.
    import trl.trainer.grpo_trainer as grpo
    from trl.chat_template_utils import add_response_schema

    parser = add_response_schema(tok)
    trl_adapter.guard_replies({t["function"]["name"] for t in trl_adapter.server_tools(spec["url"], None)})
    for kind, calls in spec.get("bad_replies", {}).items():
        env_b = trl_adapter.SparringDaEnv()
        env_b.reset(seed=spec["seed"], scenario=spec["scenario"])
        conversation_b = list(row_prompt)
        completion = []
        for move in spec["moves"][: spec["stop_after"]]:
            result = getattr(env_b, move["name"])(**move["arguments"])
            call = {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": move}]}
            completion += [call, {"role": "tool", "name": move["name"], "content": result}]
        conversation_b += completion
        reply = {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": c} for c in calls]}
        prefix = tok.apply_chat_template(conversation_b, tools=methods, add_generation_prompt=True, tokenize=True, return_dict=False)
        parsed = grpo.parse_response(parser, generated_ids(tok, conversation_b, methods, reply), prefix=prefix)
        completion.append(parsed)
        rewards = trl_adapter.episode_reward([env_b], completions=[completion])
        out["rollouts"].append(
            {"kind": kind, "reward": rewards[0], "episode_id": env_b.metadata.get("episode_id"), "done": env_b.done, "calls_left": len(parsed.get("tool_calls") or []), "wire": parsed.get("content")}
        )
    # GRPO's group advantage (TRL's default scale_rewards="group": (r - mean) / std) over the two rollouts.
    import torch

    r = torch.tensor([x["reward"] for x in out["rollouts"][:2]])
    out["advantages"] = ((r - r.mean()) / (r.std() + 1e-4)).tolist()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
