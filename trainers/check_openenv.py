#!/usr/bin/env python3
"""Checks `sparring env serve` as OpenEnv's own tools see it, given only the URL the server printed.

    .venv/bin/python trainers/check_openenv.py --url http://127.0.0.1:7318/token/<token>

Standard library and `websockets` only (OpenEnv itself is not installable here). Each check below is
this project's reading of the OpenEnv source (meta-pytorch/OpenEnv at commit 685de411, 2026-05-01),
named by file; nothing of OpenEnv is copied or imported.

`openenv validate --url URL` (src/openenv/cli/_validation.py, validate_running_environment): six
criteria, all requests without headers, each route appended to the URL as given:
  openapi_version_available  GET /openapi.json: 200, a JSON object whose info.version is a string
  health_endpoint            GET /health: 200, {"status": "healthy"}
  metadata_endpoint          GET /metadata: 200, "name" and "description" strings
  schema_endpoint            GET /schema: 200, "action", "observation" and "state" objects
  mcp_endpoint               POST /mcp with the body {}: 200, a JSON object with "jsonrpc": "2.0"
  mode_endpoint_consistency  openapi.json's paths: /reset present (simulation mode) with /step and /state
(_runtime_standard_profile: a version "1.x" is the profile openenv-http/1.x.)

OpenEnv's stock client, GenericEnvClient (src/openenv/core/generic_client.py, env_client.py,
utils.py convert_to_ws_url): the URL with http:// made ws:// and "/ws" appended, no headers;
messages {"type": "reset", "data": kwargs}, {"type": "step", "data": action}, {"type": "state"},
{"type": "close"}; an answer of type "error" raises; data's observation, reward and done are the result.

Refusals as OpenEnv's message models make them (src/openenv/core/env_server/types.py):
  ResetRequest.seed has ge=0 (a negative seed: 422 over HTTP, with FastAPI's {"detail": [{"loc": [...]}]});
  Action has extra="forbid" (an unknown action field: 422 naming it, http_server.py step_handler);
  the WS messages are BaseMessage, extra="forbid" (an unknown field of the message: VALIDATION_ERROR).
reset(episode_id=...): the state's episode_id is the client's (types.py State.episode_id, ResetRequest.episode_id).

Prints one JSON line: {"ok", "validate": {"passed", "total", "criteria"}, "client": {...}, "failures"}.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import urllib.error
import urllib.request
from typing import Any

from websockets.asyncio.client import connect

failures: list[str] = []


def check(ok: bool, what: str) -> bool:
    if not ok:
        failures.append(what)
    return ok


def http(method: str, url: str, body: Any = None) -> tuple[int, Any]:
    """One request with no headers but Content-Type (what `requests.post(json=...)` sends)."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"} if data else {})
    try:
        with urllib.request.urlopen(req, timeout=10) as res:
            status, raw = res.status, res.read()
    except urllib.error.HTTPError as e:
        status, raw = e.code, e.read()
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, None


def validate(url: str) -> dict[str, bool]:
    """The six criteria of `openenv validate`, as _validation.py defines them."""
    c: dict[str, bool] = {}
    status, doc = http("GET", f"{url}/openapi.json")
    info = doc.get("info") if isinstance(doc, dict) else None
    c["openapi_version_available"] = status == 200 and isinstance(info, dict) and isinstance(info.get("version"), str)
    paths = doc.get("paths", {}) if isinstance(doc, dict) else {}
    status, health = http("GET", f"{url}/health")
    c["health_endpoint"] = status == 200 and isinstance(health, dict) and health.get("status") == "healthy"
    status, meta = http("GET", f"{url}/metadata")
    c["metadata_endpoint"] = status == 200 and isinstance(meta, dict) and isinstance(meta.get("name"), str) and isinstance(meta.get("description"), str)
    status, schema = http("GET", f"{url}/schema")
    c["schema_endpoint"] = status == 200 and isinstance(schema, dict) and all(isinstance(schema.get(k), dict) for k in ("action", "observation", "state"))
    status, rpc = http("POST", f"{url}/mcp", {})
    c["mcp_endpoint"] = status == 200 and isinstance(rpc, dict) and rpc.get("jsonrpc") == "2.0"
    c["mode_endpoint_consistency"] = isinstance(paths, dict) and bool(paths) and all(p in paths for p in ("/reset", "/step", "/state"))
    if c["openapi_version_available"]:
        check(str(info["version"]).startswith("1."), f"openapi.json info.version {info['version']!r} is not 1.x (profile openenv-http/1.x)")
    for name, ok in c.items():
        check(ok, f"openenv validate: {name} failed")
    return c


class StockClient:
    """What GenericEnvClient does on the wire: ws(s):// + /ws, no headers, an error answer raises."""

    def __init__(self, base_url: str):
        u = base_url.rstrip("/")
        u = "ws://" + u[7:] if u.startswith("http://") else "wss://" + u[8:] if u.startswith("https://") else u
        self.ws_url = u + "/ws"
        self.ws: Any = None

    async def __aenter__(self) -> "StockClient":
        self.ws = await connect(self.ws_url, open_timeout=10, max_size=100 * 2**20)
        return self

    async def __aexit__(self, *exc: Any) -> None:
        try:
            await self.ws.send(json.dumps({"type": "close"}))
        finally:
            await self.ws.close()

    async def call(self, message: dict[str, Any]) -> dict[str, Any]:
        await self.ws.send(json.dumps(message))
        answer = json.loads(await asyncio.wait_for(self.ws.recv(), timeout=60))
        if answer.get("type") == "error":
            raise RuntimeError(json.dumps(answer.get("data", {})))
        return answer.get("data", {})

    async def refused(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """The error data of a message the server should refuse (None when it was accepted)."""
        try:
            await self.call(message)
        except RuntimeError as e:
            return json.loads(str(e))
        return None


def da_move(obs: dict[str, Any], k: int) -> dict[str, Any]:
    """RL-ADA's call sequence as tool calls: lookup_account, one domain tool, explain, end the call."""
    if k == 0:
        return {"tool_call": {"name": "lookup_account", "arguments": {"phone": obs["caller"]["phone"]}}, "thinking": "verify first"}
    if k == 1:
        return {"tool_call": {"name": "check_card_status", "arguments": {}}, "thinking": "the card"}
    if k == 2:
        return {"tool_call": {"name": "speak", "arguments": {"message": "I have checked your card."}}, "thinking": "explain"}
    return {"tool_call": {"name": "end_call", "arguments": {"message": "Thank you for calling."}}, "thinking": "done"}


def ca_move(obs: dict[str, Any], k: int) -> dict[str, Any]:
    return {"message": "My card was declined at the shop, can you help?" if k == 0 else "Yes, thank you."}


async def client_checks(url: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    async with StockClient(url) as env:
        first = await env.call({"type": "reset", "data": {"seed": 7, "episode_id": "stock-client-episode"}})
        obs, done, steps = first["observation"], first.get("done", False), 0
        role = obs.get("role")
        move = da_move if role == "DA" else ca_move
        last = first
        while not done and steps < 40:
            last = await env.call({"type": "step", "data": move(obs, steps)})
            obs, done, steps = last["observation"], last.get("done", False), steps + 1
        out["episode_done"] = check(done is True and isinstance(last.get("reward"), (int, float)), f"the stock client's episode did not finish with a reward ({steps} steps)")
        out["steps"], out["reward"] = steps, last.get("reward")
        state = await env.call({"type": "state"})
        out["episode_id_honoured"] = check(state.get("episode_id") == "stock-client-episode", f"reset(episode_id=...) not honoured: state says {state.get('episode_id')!r}")
        neg = await env.refused({"type": "reset", "data": {"seed": -1}})
        out["negative_seed_refused"] = check(neg is not None and neg.get("code") == "VALIDATION_ERROR" and "seed" in neg.get("message", ""), f"a negative seed was answered {neg}")
        await env.call({"type": "reset", "data": {"seed": 8}})
        extra = await env.refused({"type": "step", "data": {**move(obs, 0), "confidence": 0.9}})
        out["unknown_action_field_refused"] = check(
            extra is not None and extra.get("code") == "VALIDATION_ERROR" and "confidence" in extra.get("message", ""), f"an unknown action field was answered {extra}"
        )
        envelope = await env.refused({"type": "state", "data": {}})
        out["unknown_message_field_refused"] = check(envelope is not None and envelope.get("code") == "VALIDATION_ERROR", f"an unknown message field was answered {envelope}")
    # Over HTTP, FastAPI's 422 with pydantic's detail list naming the field.
    status, body = http("POST", f"{url}/reset", {"seed": -5})
    detail = body.get("detail") if isinstance(body, dict) else None
    out["http_negative_seed_422"] = check(
        status == 422 and isinstance(detail, list) and detail[0].get("loc") == ["body", "seed"], f"POST /reset with seed -5 answered {status} {json.dumps(body)[:300]}"
    )
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--url", required=True, help="the URL `sparring env serve` printed (it carries the token)")
    args = p.parse_args()
    url = args.url.rstrip("/")
    criteria = validate(url)
    try:
        client = asyncio.run(client_checks(url))
    except Exception as e:  # the stock client raises on a refused connection or an error answer
        client = {}
        check(False, f"the stock client failed: {type(e).__name__}: {e}")
    passed = sum(criteria.values())
    print(json.dumps({"ok": not failures, "validate": {"passed": passed, "total": len(criteria), "criteria": criteria}, "client": client, "failures": failures}))


if __name__ == "__main__":
    main()
