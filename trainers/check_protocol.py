#!/usr/bin/env python3
"""Protocol check of `sparring env serve`, with the Python standard library only (plus Debian's
python3-websockets for the WebSocket part): plays full episodes over HTTP and over the WebSocket
with a scripted policy and checks what a trainer relies on:

- /health, /schema and /metadata answer as OpenEnv's do;
- every episode ends; the step rewards sum to the episode reward, which is r_DA (or r_CA) and the
  sum of the reward terms in the final metadata;
- the same seed and scenario played over HTTP (wire-format messages) and over the WebSocket
  (OpenAI-style tool calls) give the same terms and judge verdict;
- /state's last episode and, with --db, the lab's stored row agree with the metadata, and each
  session's match holds each episode exactly once;
- bad input (malformed JSON, an unknown tool, a step after done) is an error and the session goes on.

    /usr/bin/python3 trainers/check_protocol.py --url http://127.0.0.1:7318 [--db LAB] [--episodes 4]

Exit status 0 when every check passed, 1 otherwise (each failure printed).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import math
import sqlite3
import sys
import urllib.error
import urllib.request

FAILURES: list[str] = []


def check(ok: bool, what: str) -> None:
    if not ok:
        FAILURES.append(what)
        print(f"FAIL {what}", file=sys.stderr)


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


class Http:
    def __init__(self, url: str, token: str | None, model: str):
        self.url = url.rstrip("/")
        self.headers = {"Content-Type": "application/json", "X-Model-Name": model}
        if token:
            self.headers["Authorization"] = f"Bearer {token}"
        self.session: str | None = None

    def request(self, method: str, path: str, body: object | None = None, raw: bytes | None = None) -> tuple[int, dict]:
        headers = dict(self.headers)
        if self.session:
            headers["X-Session-Id"] = self.session
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=60) as res:
                sid = res.headers.get("X-Session-Id")
                if sid:
                    self.session = sid
                return res.status, json.loads(res.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"{}")

    def reset(self, **data) -> dict:
        status, body = self.request("POST", "/reset", data)
        if status != 200:
            raise RuntimeError(f"POST /reset -> {status}: {body}")
        return body

    def step(self, action: dict) -> dict:
        status, body = self.request("POST", "/step", {"action": action})
        if status != 200:
            raise RuntimeError(f"POST /step -> {status}: {body}")
        return body

    def state(self) -> dict:
        return self.request("GET", "/state")[1]


class Ws:
    """One OpenEnv WebSocket session (websockets 10.4's asyncio client, Debian 12's)."""

    def __init__(self, conn):
        self.conn = conn

    @classmethod
    async def open(cls, url: str, token: str | None, model: str) -> "Ws":
        import websockets  # python3-websockets

        ws_url = url.replace("http://", "ws://").replace("https://", "wss://").rstrip("/") + "/ws"
        headers = {"X-Model-Name": model}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        # websockets 14 renamed the asyncio client's extra_headers (Debian 12 ships 10.4).
        major = int(websockets.__version__.split(".")[0])
        kw = {"additional_headers": headers} if major >= 14 else {"extra_headers": headers}
        return cls(await websockets.connect(ws_url, max_size=2**24, **kw))

    async def send(self, msg_type: str, data: object | None = None, raw: str | None = None) -> dict:
        await self.conn.send(raw if raw is not None else json.dumps({"type": msg_type, "data": data} if data is not None else {"type": msg_type}))
        return json.loads(await self.conn.recv())

    async def reset(self, **data) -> dict:
        m = await self.send("reset", data)
        if m["type"] != "observation":
            raise RuntimeError(f"ws reset -> {m}")
        return m["data"]

    async def step(self, action: dict) -> dict:
        m = await self.send("step", action)
        if m["type"] != "observation":
            raise RuntimeError(f"ws step -> {m}")
        return m["data"]

    async def state(self) -> dict:
        return (await self.send("state"))["data"]

    async def close(self) -> None:
        await self.conn.send(json.dumps({"type": "close"}))
        await self.conn.close()


# ---- scripted policies: what a trainer's model would send ---------------------------------------

KEYWORDS = [
    (("declin", "blocked", "frozen", "card", "atm"), "check_card_status"),
    (("move", "transfer between", "savings", "even out", "top up"), "transfer_funds"),
    (("twice", "recogni", "didn't make", "refund", "dispute", "charge"), "dispute_charge"),
    (("recent", "transactions", "activity", "spent"), "get_transactions"),
]


def da_moves(obs: dict) -> dict:
    """A scripted DA as RL-ADA's call sequence: lookup_account, one domain tool, explain, end_call."""
    turns = obs["turns"]
    agent = [t for t in turns if t["role"] == "agent"]
    said = " ".join(t["text"] for t in turns if t["role"] == "customer").lower()
    if not agent:
        return {"name": "lookup_account", "arguments": {"phone": obs["caller"]["phone"]}, "thinking": "verify the caller first"}
    account = next((t.get("toolResult") for t in agent if t.get("toolResult", {}).get("tool") == "lookup_account"), None)
    data = (account or {}).get("data", {})
    accounts = [a["account_id"] for a in data.get("accounts", [])] or ["unknown"]
    cards = [c["card_id"] for c in data.get("cards", [])] or ["unknown"]
    if len(agent) == 1:
        tool = next((t for words, t in KEYWORDS if any(w in said for w in words)), "transfer_to_human")
        args = {
            "check_card_status": {"card_id": cards[0]},
            "transfer_funds": {"from_account_id": accounts[-1], "to_account_id": accounts[0], "amount": 10},
            "dispute_charge": {"account_id": accounts[0], "reason": "unrecognized"},
            "get_transactions": {"account_id": accounts[0]},
            "transfer_to_human": {"reason": "customer request", "department": "general"},
        }[tool]
        return {"name": tool, "arguments": args, "thinking": f"route to {tool}"}
    if len(agent) == 2:
        return {"name": "speak", "arguments": {"message": "I have looked into it and taken care of it for you."}, "thinking": "explain the result"}
    return {"name": "end_call", "arguments": {"message": "Thank you for calling."}, "thinking": "done"}


def da_action(obs: dict, form: str) -> dict:
    move = da_moves(obs)
    if form == "tool_call":
        return {"tool_call": {"name": move["name"], "arguments": json.dumps(move["arguments"])}, "thinking": move["thinking"]}
    if move["name"] in ("speak", "end_call"):
        wire = {"thinking": move["thinking"], "action_type": move["name"], "content": move["arguments"]["message"], "tool_args": {}}
    else:
        wire = {"thinking": move["thinking"], "action_type": "tool_call", "content": move["name"], "tool_args": move["arguments"]}
    return {"message": json.dumps(wire, ensure_ascii=False, separators=(",", ":"))}


def ca_action(obs: dict, form: str) -> dict:
    """A scripted customer: states the problem around its facts, then confirms."""
    facts = obs.get("facts") or {}
    n = len([d for d in obs["dialogue"] if d["role"] == "customer"])
    if n == 0:
        detail = ", ".join(f"{k} {v}" for k, v in list(facts.items())[:2])
        return {"message": f"Hi, something is wrong with my account ({detail}). Can you help?"}
    return {"message": "Yes, that's right. Thank you." if n > 1 else "It happened recently, I'm not sure what to do."}


def act(role: str, obs: dict, form: str) -> dict:
    return da_action(obs, form) if role == "DA" else ca_action(obs, form)


# ---- checks --------------------------------------------------------------------------------------


def check_episode(where: str, role: str, rewards: list[float], final: dict) -> dict:
    meta = final["observation"]["metadata"]
    total = sum(r for r in rewards if r is not None)
    mine = meta["r_da"] if role == "DA" else meta["r_ca"]
    check(final["done"] is True, f"{where}: episode did not end")
    check(close(final["reward"], mine), f"{where}: final reward {final['reward']} != r_{role} {mine}")
    check(close(total, mine), f"{where}: step rewards sum to {total}, not r_{role} {mine}")
    check(close(sum(meta["terms"].values()), mine), f"{where}: terms sum to {sum(meta['terms'].values())}, not r_{role} {mine}")
    check(close(sum(meta["da_terms"].values()), meta["r_da"]), f"{where}: DA terms do not sum to r_DA")
    check(close(sum(meta["ca_terms"].values()), meta["r_ca"]), f"{where}: CA terms do not sum to r_CA")
    check(-2.0 <= meta["judge"]["score"] <= 2.0, f"{where}: judge score {meta['judge']['score']} outside [-2, 2]")
    check(meta.get("stored") is True, f"{where}: episode not stored ({meta.get('store_error')})")
    return meta


def check_state(where: str, state: dict, meta: dict) -> None:
    last = state.get("last_episode") or {}
    check(last.get("id") == meta["episode_id"], f"{where}: /state last episode {last.get('id')} != {meta['episode_id']}")
    check(close(last.get("r_da", math.nan), meta["r_da"]), f"{where}: /state r_da differs from the step's metadata")
    check(last.get("da_terms") == meta["da_terms"], f"{where}: /state DA terms differ from the step's metadata")


def check_lab(db: str, metas: list[dict]) -> None:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        for meta in metas:
            row = con.execute("SELECT * FROM episodes WHERE id = ?", (meta["episode_id"],)).fetchone()
            if row is None:
                check(False, f"lab: episode {meta['episode_id']} is not in {db}")
                continue
            cols = [d[0] for d in con.execute("SELECT * FROM episodes LIMIT 0").description]
            rec = dict(zip(cols, row))
            check(close(rec["r_da"], meta["r_da"]) and close(rec["r_ca"], meta["r_ca"]), f"lab: {meta['episode_id']} rewards differ")
            for term, value in meta["da_terms"].items():
                check(close(rec[f"da_{term}"], value), f"lab: {meta['episode_id']} da_{term} {rec[f'da_{term}']} != {value}")
            for term, value in meta["ca_terms"].items():
                check(close(rec[f"ca_{term}"], value), f"lab: {meta['episode_id']} ca_{term} {rec[f'ca_{term}']} != {value}")
            check(close(rec["judge_score"], meta["judge"]["score"]), f"lab: {meta['episode_id']} judge score differs")
        for match_id in {m["match_id"] for m in metas}:
            ids = [r[0] for r in con.execute("SELECT id FROM episodes WHERE match_id = ?", (match_id,))]
            mine = [m["episode_id"] for m in metas if m["match_id"] == match_id]
            check(sorted(ids) == sorted(mine), f"lab: match {match_id} holds {len(ids)} episodes, the session played {len(mine)} (each must be stored exactly once)")
    finally:
        con.close()


def play_http(http: Http, role: str, seed: int, scenario: str | None, form: str) -> dict:
    first = http.reset(seed=seed, **({"scenario": scenario} if scenario else {}))
    rewards, res = [], first
    while not res["done"]:
        res = http.step(act(role, res["observation"], form))
        rewards.append(res["reward"])
    return check_episode(f"http seed {seed}", role, rewards, res)


async def play_ws(ws: Ws, role: str, seed: int, scenario: str | None, form: str) -> dict:
    res = await ws.reset(seed=seed, **({"scenario": scenario} if scenario else {}))
    rewards = []
    while not res["done"]:
        res = await ws.step(act(role, res["observation"], form))
        rewards.append(res["reward"])
    return check_episode(f"ws seed {seed}", role, rewards, res)


async def ws_part(args, role: str, plan: list[tuple[int, str]], http_metas: list[dict]) -> list[dict]:
    ws = await Ws.open(args.url, args.token, "check-protocol-ws")
    metas = []
    try:
        for (seed, scenario), hm in zip(plan, http_metas):
            meta = await play_ws(ws, role, seed, scenario, "tool_call" if role == "DA" else "message")
            metas.append(meta)
            same = meta["da_terms"] == hm["da_terms"] and meta["ca_terms"] == hm["ca_terms"] and meta["judge"] == hm["judge"]
            check(same, f"seed {seed} {scenario}: WebSocket and HTTP episodes differ (terms or verdict)")
        check_state("ws", await ws.state(), metas[-1])
        # Bad input: each an error naming the problem; the session goes on.
        bad = await ws.send("", raw='{"type": "step", ')
        check(bad["type"] == "error" and bad["data"].get("code") == "INVALID_JSON", f"ws: malformed JSON answered {bad}")
        bad = await ws.send("step", {"message": "{}"})
        check(bad["type"] == "error" and "after done" in bad["data"].get("message", ""), f"ws: step after done answered {bad}")
        await ws.reset(seed=plan[0][0])
        if role == "DA":
            bad = await ws.send("step", {"tool_call": {"name": "no_such_tool", "arguments": "{}"}})
            check(bad["type"] == "error" and "unknown tool" in bad["data"].get("message", ""), f"ws: unknown tool answered {bad}")
        bad = await ws.send("warp")
        check(bad["type"] == "error" and bad["data"].get("code") == "UNKNOWN_TYPE", f"ws: unknown type answered {bad}")
        state = await ws.state()
        check(state.get("done") is False and state.get("step_count") == 0, f"ws: the session did not go on after errors: {state}")
    finally:
        await ws.close()
    return metas


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--url", required=True, help="the server's http://HOST:PORT, as `sparring env serve` printed")
    p.add_argument("--token", default=None, help="the server's token, when it has one")
    p.add_argument("--db", default=None, help="the server's lab file, to check stored episodes against the metadata")
    p.add_argument("--episodes", type=int, default=4, help="episodes per transport")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--http-only", action="store_true", help="skip the WebSocket part (no python3-websockets)")
    args = p.parse_args()

    http = Http(args.url, args.token, "check-protocol-http")
    status, health = http.request("GET", "/health")
    check(status == 200 and health == {"status": "healthy"}, f"/health answered {status} {health}")
    status, schema = http.request("GET", "/schema")
    check(status == 200 and set(schema) == {"action", "observation", "state"}, f"/schema answered {status} {list(schema)}")
    role = "DA" if "Da" in schema.get("action", {}).get("title", "") else "CA"
    status, meta = http.request("GET", "/metadata")
    check(status == 200 and meta.get("name") == "sparring", f"/metadata answered {status} {meta}")

    # Scenarios: the server names them in its refusal of an unknown one.
    status, refusal = http.request("POST", "/reset", {"scenario": "no-such-scenario"})
    check(status == 422 and "unknown scenario" in refusal.get("detail", ""), f"/reset of an unknown scenario answered {status} {refusal}")
    scenarios = refusal.get("detail", "").split("this server plays: ")[-1].split(", ")
    plan = [(args.seed + i, scenarios[i % len(scenarios)]) for i in range(args.episodes)]

    http_metas = [play_http(http, role, seed, scenario, "message") for seed, scenario in plan]
    check_state("http", http.state(), http_metas[-1])
    status, bad = http.request("POST", "/step", raw=b'{"action": ')
    check(status == 400 and bad.get("code") == "INVALID_JSON", f"http: malformed JSON answered {status} {bad}")
    status, bad = http.request("POST", "/step", {"action": {"message": "{}"}, "session_id": "nope"})
    check(status == 404 and "unknown session" in bad.get("detail", ""), f"http: unknown session answered {status} {bad}")

    ws_metas: list[dict] = []
    if not args.http_only:
        try:
            import websockets  # noqa: F401
        except ImportError:
            check(False, "python3-websockets is not installed (apt-get install python3-websockets), or pass --http-only")
        else:
            ws_metas = asyncio.run(ws_part(args, role, plan, http_metas))

    if args.db:
        check_lab(args.db, http_metas + ws_metas)

    played = len(http_metas) + len(ws_metas)
    mean = sum(m["r_da" if role == "DA" else "r_ca"] for m in http_metas + ws_metas) / max(played, 1)
    print(json.dumps({"ok": not FAILURES, "role": role, "episodes": played, f"mean_r_{role.lower()}": round(mean, 4), "failures": FAILURES}))
    return 0 if not FAILURES else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (RuntimeError, OSError, KeyError) as e:  # the server refused or answered out of protocol
        print(json.dumps({"ok": False, "failures": FAILURES + [f"{type(e).__name__}: {e}"]}))
        sys.exit(1)
