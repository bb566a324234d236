"""A small synchronous client of `sparring env serve` (OpenEnv WebSocket protocol), shared by the
TRL and verl adapters. One `SparringSession` is one server session (one WebSocket): reset, step,
state, close. Needs `websockets` >= 13 (its sync client); see requirements-trl.txt.

    s = SparringSession("http://127.0.0.1:7318", model="Qwen2.5-3B-Instruct+lora")
    obs = s.reset(seed=7, scenario="card-declined")          # {"observation", "reward", "done"}
    obs = s.step({"tool_call": {"name": "lookup_account", "arguments": {"phone": "..."}}, "thinking": "..."})

The observation's own fields are the learner's view (what may go into the prompt); its `metadata`
is for the trainer: at the end `r_da`, `r_ca`, `terms`, `judge`, `winner`, `adversities`.
"""
from __future__ import annotations

import json
from typing import Any

from websockets.sync.client import connect


class SparringError(RuntimeError):
    """The server refused a message; `code` is OpenEnv's (VALIDATION_ERROR, INVALID_JSON, ...)."""

    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code = code


class SparringSession:
    def __init__(self, url: str, model: str = "unnamed", token: str | None = None, timeout: float = 120.0):
        ws_url = url.replace("http://", "ws://").replace("https://", "wss://").rstrip("/")
        if not ws_url.endswith("/ws"):
            ws_url += "/ws"
        headers = {"X-Model-Name": model}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self._ws = connect(ws_url, additional_headers=headers, max_size=2**24, open_timeout=timeout)
        self._timeout = timeout
        self.last: dict[str, Any] | None = None

    def _call(self, msg_type: str, data: Any = None) -> dict[str, Any]:
        self._ws.send(json.dumps({"type": msg_type} if data is None else {"type": msg_type, "data": data}))
        answer = json.loads(self._ws.recv(timeout=self._timeout))
        if answer["type"] == "error":
            raise SparringError(answer["data"].get("code", "ERROR"), answer["data"].get("message", ""))
        return answer["data"]

    def reset(self, seed: int | None = None, scenario: str | None = None, replay: list[str] | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {}
        if seed is not None:
            data["seed"] = int(seed)
        if scenario:
            data["scenario"] = scenario
        if replay:
            data["replay"] = list(replay)
        self.last = self._call("reset", data)
        return self.last

    def step(self, action: dict[str, Any]) -> dict[str, Any]:
        self.last = self._call("step", action)
        return self.last

    def state(self) -> dict[str, Any]:
        return self._call("state")

    def close(self) -> None:
        try:
            self._ws.send(json.dumps({"type": "close"}))
        finally:
            self._ws.close()


def latest_turn_text(obs: dict[str, Any]) -> str:
    """What the learner just learnt, as text for the next prompt turn: the DA's tool result or the
    customer's reply (DA); the agent's words, or at the start the customer's brief (CA)."""
    if obs.get("role") == "CA":
        said = [d["text"] for d in obs.get("dialogue", []) if d["role"] == "agent"]
        if said:
            return said[-1]
        # Before the agent has said anything: the customer's brief (hidden intent, persona, facts).
        messages = obs.get("messages") or [{}]
        return messages[0].get("content", "")
    turns = obs.get("turns", [])
    if not turns:
        return ""
    last = turns[-1]
    if last["role"] == "customer":
        return f"Customer: {last['text']}"
    if last.get("toolResult") is not None:
        return f"Tool result: {json.dumps(last['toolResult'])}"
    if last.get("parseError"):
        return f"(your last output was not valid: {last['parseError']})"
    return ""
