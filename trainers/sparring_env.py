"""A small synchronous client of `sparring env serve` (OpenEnv WebSocket protocol), shared by the
TRL and verl adapters. One `SparringSession` is one server session (one WebSocket): reset, step,
state, close. Needs `websockets` >= 13 (its sync client); see requirements.txt.

    s = SparringSession("http://127.0.0.1:7318", model="Qwen2.5-3B-Instruct+lora")
    obs = s.reset(seed=7, scenario="card-declined")          # {"observation", "reward", "done"}
    obs = s.step({"tool_call": {"name": "lookup_account", "arguments": {"thinking": "...", "phone": "..."}}})

The observation's own fields are the learner's view (what may go into the prompt): for the DA its
`messages` are the dialogue in the trained form (models/llm/da-messages.ts), and `tools` (first
observation) the functions' specs. Its `metadata` is for the trainer: at the end `r_da`, `r_ca`,
`terms`, `judge`, `winner`, `adversities`.

The server closes a session after 300 s without a message (close code 4408). A reset after that
opens a new connection; a step cannot (its episode is gone) and says so.
"""
from __future__ import annotations

import json
from typing import Any

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect


class SparringError(RuntimeError):
    """The server refused a message; `code` is OpenEnv's (VALIDATION_ERROR, INVALID_JSON, ...)."""

    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code = code


def ws_url_of(url: str) -> str:
    ws_url = url.replace("http://", "ws://").replace("https://", "wss://").rstrip("/")
    return ws_url if ws_url.endswith("/ws") else ws_url + "/ws"


class SparringSession:
    def __init__(self, url: str, model: str = "unnamed", token: str | None = None, timeout: float = 120.0):
        self.url = ws_url_of(url)
        self.model = model
        self.token = token
        self._timeout = timeout
        self._ws = None
        self.reconnects = 0
        self.last: dict[str, Any] | None = None

    def _connect(self) -> None:
        headers = {"X-Model-Name": self.model}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        self._ws = connect(self.url, additional_headers=headers, max_size=2**24, open_timeout=self._timeout)

    def _call(self, msg_type: str, data: Any = None, reconnect: bool = False) -> dict[str, Any]:
        payload = json.dumps({"type": msg_type} if data is None else {"type": msg_type, "data": data})
        for attempt in (0, 1):
            if self._ws is None:
                self._connect()
            try:
                self._ws.send(payload)
                answer = json.loads(self._ws.recv(timeout=self._timeout))
                break
            except ConnectionClosed as e:
                self._ws = None
                if not reconnect or attempt == 1:
                    raise SparringError(
                        "SESSION_ERROR",
                        f"the server closed the session ({e.rcvd.code if e.rcvd else 'no close frame'}"
                        f"{': ' + e.rcvd.reason if e.rcvd and e.rcvd.reason else ''}); its episode is gone, reset to start another",
                    ) from e
                self.reconnects += 1
        if answer["type"] == "error":
            raise SparringError(answer["data"].get("code", "ERROR"), answer["data"].get("message", ""))
        return answer["data"]

    def reset(self, seed: int | None = None, scenario: str | None = None, replay: list[str] | None = None, opponent_replay: list[str] | None = None) -> dict[str, Any]:
        """A new episode; a gym export line's `reset` (`replay`, `opponent_replay`) starts it at that decision point."""
        data: dict[str, Any] = {}
        if seed is not None:
            data["seed"] = int(seed)
        if scenario:
            data["scenario"] = scenario
        if replay:
            data["replay"] = list(replay)
        if opponent_replay:
            data["opponent_replay"] = list(opponent_replay)
        # A reset starts afresh, so a session the server closed (idle timeout) is reopened.
        self.last = self._call("reset", data, reconnect=True)
        return self.last

    def step(self, action: dict[str, Any]) -> dict[str, Any]:
        self.last = self._call("step", action)
        return self.last

    def state(self) -> dict[str, Any]:
        return self._call("state")

    def close(self) -> None:
        if self._ws is None:
            return
        try:
            self._ws.send(json.dumps({"type": "close"}))
        except ConnectionClosed:
            pass
        finally:
            self._ws.close()
            self._ws = None


def new_messages(obs: dict[str, Any]) -> list[dict[str, Any]]:
    """The messages after the learner's last move (the server's own rendering): for the DA in the
    trained form, the tool message its call got (a tool's JSON result, the customer's answer to
    `speak`, or `{"call_ended": true}`)."""
    messages = obs.get("messages", [])
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
    return messages[last + 1 :]


def tool_message_text(obs: dict[str, Any]) -> str:
    """The tool message the learner's last call got, in the trained form of either role (the
    server's own rendering, `models/llm/da-messages.ts` / `ca-messages.ts`): the DA's tool result,
    the customer's answer to `speak` or `{"call_ended": true}`; the CA's `{"agent": ...}` after `say`."""
    return "\n".join(m.get("content") or "" for m in new_messages(obs))


def latest_turn_text(obs: dict[str, Any]) -> str:
    """What the learner just learnt, as text for the next prompt turn of a plain chat (verl): the
    DA's tool message in the trained form; the agent's words, or at the start the customer's brief (CA)."""
    if obs.get("role") == "CA":
        said = [d["text"] for d in obs.get("dialogue", []) if d["role"] == "agent"]
        if said:
            return said[-1]
        messages = obs.get("messages") or [{}]
        return messages[0].get("content", "")
    return tool_message_text(obs)
