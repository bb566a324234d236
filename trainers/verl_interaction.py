"""verl adapter: Sparring's world as a verl `BaseInteraction` (verl.interactions.base), for
multi-turn rollouts on Ray clusters (SGLang or vLLM generating). One interaction instance per
rollout holds one `sparring env serve` session; the model's turn goes to the server as the DA's
wire-format output (or the CA's utterance), and the server's answer (a tool result, the customer's
reply) is the next user turn. The turn score is the server's step reward (0 until the episode ends,
then r_DA or r_CA), so the sum over turns is the episode reward.

Interaction config (verl's `interaction_config_path` YAML):

    interaction:
      - name: sparring
        class_name: verl_interaction.SparringInteraction
        config: {url: "http://10.0.0.5:7318", token: "...", model: "qwen2.5-3b-grpo"}

The dataset rows' `interaction_kwargs` carry `seed`, `scenario`, `replay` and `opponent_replay` from
`sparring gym export` (`reset` of each line), so each rollout starts at a gym decision point.
"""
from __future__ import annotations

import asyncio
from typing import Any, Optional
from uuid import uuid4

from verl.interactions.base import BaseInteraction

from sparring_env import SparringError, SparringSession, latest_turn_text


class SparringInteraction(BaseInteraction):
    def __init__(self, config: dict[str, Any]):
        super().__init__(config)
        self.url = config.get("url", "http://127.0.0.1:7318")
        self.token = config.get("token")
        self.model = config.get("model", "verl")
        self.sessions: dict[str, SparringSession] = {}
        self.scores: dict[str, float] = {}

    async def start_interaction(self, instance_id: Optional[str] = None, seed: Optional[int] = None, scenario: Optional[str] = None, replay: Optional[list[str]] = None, opponent_replay: Optional[list[str]] = None, **kwargs: Any) -> str:
        instance_id = instance_id or str(uuid4())
        session = await asyncio.to_thread(SparringSession, self.url, self.model, self.token)
        await asyncio.to_thread(session.reset, seed, scenario, replay, opponent_replay)
        self.sessions[instance_id] = session
        self.scores[instance_id] = 0.0
        return instance_id

    async def generate_response(self, instance_id: str, messages: list[dict[str, Any]], **kwargs: Any) -> tuple[bool, str, float, dict[str, Any]]:
        session = self.sessions[instance_id]
        last = next((m for m in reversed(messages) if m.get("role") == "assistant"), None)
        text = (last or {}).get("content") or ""
        try:
            ans = await asyncio.to_thread(session.step, {"message": text})
        except SparringError as e:
            # A protocol refusal (e.g. a step after the end) ends the rollout; it is not a move.
            return True, f"Error: {e}", 0.0, {"error": str(e)}
        reward = float(ans["reward"] or 0.0)
        self.scores[instance_id] += reward
        meta = ans["observation"].get("metadata", {})
        if ans["done"]:
            return True, "The call has ended.", reward, meta
        return False, latest_turn_text(ans["observation"]), reward, meta

    async def calculate_score(self, instance_id: Optional[str] = None, **kwargs: Any) -> float:
        return self.scores.get(instance_id or "", 0.0)

    async def finalize_interaction(self, instance_id: Optional[str] = None, **kwargs: Any) -> None:
        session = self.sessions.pop(instance_id or "", None)
        self.scores.pop(instance_id or "", None)
        if session is not None:
            await asyncio.to_thread(session.close)
