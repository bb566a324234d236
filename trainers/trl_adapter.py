"""TRL adapter: Sparring's world as an `environment_factory` for TRL's GRPOTrainer (TRL 1.13:
the trainer makes one environment per rollout slot, calls `reset(**row)` with the dataset row
before each generation, exposes the public methods as tools, and passes the environments to the
reward functions as `environments`).

Each environment is one `sparring env serve` session (a WebSocket). The rows come from
`sparring gym export RUN --gym N` (columns `prompt`, `seed`, `scenario`, `replay`,
`opponent_replay`), so every rollout starts at a decision point of the gym — the recorded dialogue,
both seats' turns replayed as the match played them — and the server plays the rest of the episode
against the gym's frozen opponent (the current one: for a CA gym after the DA's gym of the same
round, the new DA): the reward is r_DA (or r_CA) of that rollout, RL-ADA's r_env included.

One format (the trained form: models/llm/da-messages.ts for the DA, ca-messages.ts for the CA):
the prompt is the server's rendering of the dialogue, the learner's tools are the server's specs
(`observation.tools`: the DA's banking tools, speak and end_call; the CA's `say`), turned into
methods whose schemas transformers renders exactly as the specs, and each tool's result is the
server's tool message (the CA's: what the agent said back, `{"agent": ...}`). So `reset` returns
None: the row's prompt already ends with the current turn (TRL appends whatever `reset` returns to
the last prompt message).

A rollout that stops (a reply without a call, or cut by TRL's length limits) is scored as the arena
scores a DA that gives that reply at every turn left: the reply goes to the server as the DA's
output (parsed by the one parser: text that is not the wire format earns r_format -3) until the
episode ends. So stopping is never free.

A reply that is not one move (several calls, or a call to a function the DA does not have) is not
left to TRL, which would answer an unknown function with `{"error": ...}` that the world never
sees (and would run several parsed calls as several moves): `guard_replies()` makes TRL read such a
reply as a reply without a call whose text is what the arena's one mapping (`wireFromNative`,
models/llm/da-messages.ts) makes of it — several calls a JSON list (unparseable: r_format -3), an
unknown function the wire form's tool call, judged by the world as in the arena — so the rollout
ends there and is finished as above, scored as the arena scores that reply at every turn left.
(TRL 1.13's own parser, with Qwen2.5's template, already reads a reply of several calls as text.)

Where: `configure(url=..., token=..., model=...)` before the trainer is made, else the environment
variables SPARRING_ENV_URL (default http://127.0.0.1:7318), SPARRING_ENV_TOKEN and
SPARRING_MODEL_NAME (stored with each episode in the lab), read when an environment is made.
"""
from __future__ import annotations

import inspect
import json
import os
import types
from typing import Any

from sparring_env import SparringError, SparringSession, tool_message_text

_CONFIG: dict[str, str | None] = {}
CALL_ENDED = json.dumps({"call_ended": True}, separators=(",", ":"))
_PY_TYPES = {"string": str, "integer": int, "number": float, "boolean": bool}
# At most this many repeats of a stopped rollout's last reply (the server ends the episode at its turn limit first).
_MAX_FINISH_STEPS = 256


def configure(url: str | None = None, token: str | None = None, model: str | None = None) -> None:
    """Set the server, its token and the model name for environments made from now on."""
    for k, v in (("url", url), ("token", token), ("model", model)):
        if v is not None:
            _CONFIG[k] = v


def _setting(key: str, env: str, default: str | None) -> str | None:
    return _CONFIG.get(key) or os.environ.get(env) or default


_tool_specs: dict[str, list[dict[str, Any]]] = {}


def server_tools(url: str, token: str | None) -> list[dict[str, Any]]:
    """The learner's function specs as the server gives them (the first observation's `tools`): the
    DA's banking tools, speak and end_call; the CA's say."""
    if url not in _tool_specs:
        s = SparringSession(url, model="tools-probe", token=token)
        try:
            _tool_specs[url] = s.reset()["observation"]["tools"]
        finally:
            s.close()
    return _tool_specs[url]


def _method_of(spec: dict[str, Any]):
    """A method standing for one server function: its signature and Google-style docstring make
    transformers' `get_json_schema` write back exactly `spec`; a call forwards its arguments as given."""
    f = spec["function"]
    name, props = f["name"], f["parameters"]["properties"]
    required = set(f["parameters"].get("required", []))

    def tool(self, **kwargs: Any) -> str:
        return self._call_tool(name, kwargs)

    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {}
    lines = []
    for arg, p in props.items():
        t = _PY_TYPES[p["type"]]
        default = inspect.Parameter.empty if arg in required else None
        params.append(inspect.Parameter(arg, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=t))
        annotations[arg] = t
        choices = f" (choices: {json.dumps(p['enum'])})" if "enum" in p else ""
        lines.append(f"    {arg}: {p['description']}{choices}")
    tool.__signature__ = inspect.Signature(params)
    tool.__annotations__ = annotations
    tool.__name__ = tool.__qualname__ = name
    tool.__doc__ = f"{f['description']}\n\nArgs:\n" + "\n".join(lines)
    return tool


class _Session:
    """What both roles share: one server session, the last answer, the episode's reward."""

    def __init__(self) -> None:
        self.url = _setting("url", "SPARRING_ENV_URL", "http://127.0.0.1:7318")
        self.token = _setting("token", "SPARRING_ENV_TOKEN", None)
        self.model = _setting("model", "SPARRING_MODEL_NAME", "trl")
        self.session = SparringSession(self.url, model=self.model, token=self.token)
        self.reward = 0.0
        self.done = False
        self.metadata: dict[str, Any] = {}
        self.observation: dict[str, Any] = {}

    def reset(
        self, seed: int | None = None, scenario: str | None = None, replay: list[str] | None = None, opponent_replay: list[str] | None = None, prompt: Any = None, **_: Any
    ) -> None:
        ans = self.session.reset(seed=seed, scenario=scenario, replay=replay, opponent_replay=opponent_replay)
        self.reward, self.done = 0.0, False
        self.observation = ans["observation"]
        self.metadata = self.observation.get("metadata", {})
        if prompt is not None:
            _same_dialogue(prompt, self.observation.get("messages", []))
        return None  # the row's prompt already ends with this turn

    def _step(self, action: dict[str, Any]) -> dict[str, Any]:
        ans = self.session.step(action)
        self.observation = ans["observation"]
        self.metadata = self.observation.get("metadata", {})
        self.reward += ans["reward"] or 0.0
        self.done = bool(ans["done"])
        return ans

    def _finish(self, completion: list[dict[str, Any]] | None) -> None:
        """End a rollout that stopped: its last reply, as the learner's output, at every turn left."""
        if self.done:
            return
        last = (completion or [{}])[-1] if completion else {}
        text = last.get("content") if last.get("role") == "assistant" and not last.get("tool_calls") else ""
        if isinstance(text, list):  # content parts
            text = "".join(p.get("text", "") for p in text if isinstance(p, dict))
        for _ in range(_MAX_FINISH_STEPS):
            if self.done:
                return
            self._step({"message": text or ""})
        raise RuntimeError(f"the episode did not end after {_MAX_FINISH_STEPS} steps")


def _same_dialogue(prompt: list[dict[str, Any]], server: list[dict[str, Any]]) -> None:
    """Refuse a row whose prompt is not the server's rendering of the same point (a stale export, or
    another format), naming the first message that differs."""

    def norm(m: dict[str, Any]) -> Any:
        calls = [{"name": c["function"]["name"], "arguments": c["function"]["arguments"]} for c in m.get("tool_calls") or []]
        return (m.get("role"), m.get("content") or "", calls)

    if len(prompt) != len(server):
        raise ValueError(f"the row's prompt has {len(prompt)} messages, the server's dialogue {len(server)}: export the gym again")
    for i, (a, b) in enumerate(zip(prompt, server)):
        if norm(a) != norm(b):
            raise ValueError(f"the row's prompt differs from the server's dialogue at message {i}: export the gym again")


class SparringDaEnv(_Session):
    """The support agent's seat: the server's functions (six banking tools, speak, end_call), each
    with a `thinking` argument (an empty one forfeits r_format's +0.5)."""

    def __init__(self) -> None:
        super().__init__()
        for spec in server_tools(self.url, self.token):
            setattr(self, spec["function"]["name"], types.MethodType(_method_of(spec), self))

    def _call_tool(self, name: str, arguments: dict[str, Any]) -> str:
        if self.done:
            return CALL_ENDED
        try:
            self._step({"tool_call": {"name": name, "arguments": arguments}})
        except SparringError as e:  # a protocol refusal, never a move the arena could score
            return json.dumps({"error": str(e)})
        return tool_message_text(self.observation)


class SparringCaEnv(_Session):
    """The customer's seat: the server's one function, `say` (`{"utterance"}`), whose result is what
    the agent said back (`{"agent": ...}`, `"call_ended": true` once the call is over), the trained
    form of `models/llm/ca-messages.ts`."""

    def __init__(self) -> None:
        super().__init__()
        for spec in server_tools(self.url, self.token):
            setattr(self, spec["function"]["name"], types.MethodType(_method_of(spec), self))

    def _call_tool(self, name: str, arguments: dict[str, Any]) -> str:
        if self.done:
            return CALL_ENDED
        try:
            self._step({"message": arguments.get("utterance")})
        except SparringError as e:  # a protocol refusal (an utterance that is not a string)
            return json.dumps({"error": str(e)})
        return tool_message_text(self.observation)


def wire_of_reply(reply: dict[str, Any]) -> str:
    """The DA's raw output for a reply of several calls or of an unknown function, as the arena's one
    mapping makes it (`wireFromNative`): several calls, the JSON list of `{"name", "arguments"}` with
    the arguments as JSON text; one call, the wire object with the call's `thinking`."""

    def compact(v: Any) -> str:
        return json.dumps(v, separators=(",", ":"), ensure_ascii=False)

    calls = [c.get("function", c) for c in reply.get("tool_calls") or []]
    args = lambda a: a if isinstance(a, str) else compact(a)  # noqa: E731
    if len(calls) != 1:
        return compact([{"name": c.get("name"), "arguments": args(c.get("arguments", {}))} for c in calls])
    c = calls[0]
    a = c.get("arguments", {})
    o = dict(a) if isinstance(a, dict) else None
    thinking = o.pop("thinking") if o is not None and isinstance(o.get("thinking"), str) else (reply.get("content") or "")
    return '{"thinking":' + compact(thinking) + ',"action_type":"tool_call","content":' + compact(c.get("name")) + ',"tool_args":' + (compact(o) if o is not None else args(a)) + "}"


def one_move(reply: dict[str, Any], tool_names: set[str]) -> dict[str, Any]:
    """`reply` as TRL should act on it: unchanged when it holds at most one call of a known function;
    else a reply without a call whose text is `wire_of_reply` (see the module's doc)."""
    calls = reply.get("tool_calls") or []
    if len(calls) <= 1 and all(c.get("function", c).get("name") in tool_names for c in calls):
        return reply
    return {"role": "assistant", "content": wire_of_reply(reply)}


def guard_replies(tool_names: set[str]) -> None:
    """Make TRL's GRPO trainer read each generated reply through `one_move` (it parses replies with
    `trl.chat_template_utils.parse_response`, imported into its module)."""
    import trl.trainer.grpo_trainer as grpo

    parse = getattr(grpo.parse_response, "__wrapped__", grpo.parse_response)

    def guarded(*args: Any, **kwargs: Any) -> dict[str, Any]:
        return one_move(parse(*args, **kwargs), tool_names)

    guarded.__wrapped__ = parse  # type: ignore[attr-defined]
    grpo.parse_response = guarded


# ---- reward functions: the server's reward, and its terms for logging ------------------------------


def _finish_all(environments: list[_Session], completions: list[Any] | None) -> None:
    for i, env in enumerate(environments):
        env._finish(completions[i] if completions is not None and isinstance(completions[i], list) else None)


def episode_reward(environments: list[_Session], completions: list[Any] | None = None, **_: Any) -> list[float]:
    """r_DA (DA seat) or r_CA (CA seat) of each rollout, as the server computed it (RL-ADA Table 2 /
    the CA terms, judge included), a stopped rollout finished first (see the module's doc)."""
    _finish_all(environments, completions)
    return [env.reward for env in environments]


def term(name: str):
    """A reward function that reads one term (e.g. "format", "tool", "env_judge") of each rollout:
    pass with weight 0 in `reward_weights` to log it without training on it twice."""

    def fn(environments: list[_Session], completions: list[Any] | None = None, **_: Any) -> list[float]:
        _finish_all(environments, completions)
        return [float(env.metadata.get("terms", {}).get(name, 0.0)) for env in environments]

    fn.__name__ = f"term_{name}"
    return fn


def episode_ids(environments: list[_Session]) -> list[str | None]:
    """The lab's id of each rollout's stored episode (after the reward functions ran)."""
    return [env.metadata.get("episode_id") if env.done else None for env in environments]
