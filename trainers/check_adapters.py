#!/usr/bin/env python3
"""Smoke check of the trainer adapters without TRL or verl (neither installs here): plays full
episodes through `trl_adapter.SparringDaEnv` / `SparringCaEnv` (its tool methods, as TRL would call
them, and its reward functions) and through `verl_interaction.SparringInteraction` (start, turns,
score, finalize), against a running `sparring env serve`, and checks that each adapter's reward is
the server's r_DA / r_CA. Stand-ins, only where the real package is missing: `websockets.sync`
(Debian 12's websockets 10.4 predates it) over websockets' asyncio client, and a minimal
`verl.interactions.base.BaseInteraction` (the shape of verl's own).

    /usr/bin/python3 trainers/check_adapters.py --url http://127.0.0.1:7318
"""
from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import sys
import threading
import types
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def install_stand_ins() -> list[str]:
    used = []
    try:
        import websockets.sync.client  # noqa: F401
    except ImportError:
        import websockets

        class SyncConnection:
            """websockets.sync.client's connection, over the asyncio client on a private loop."""

            def __init__(self, url, additional_headers=None, max_size=None, open_timeout=None):
                self.loop = asyncio.new_event_loop()
                threading.Thread(target=self.loop.run_forever, daemon=True).start()
                async def open_():
                    return await websockets.connect(url, extra_headers=additional_headers, max_size=max_size)

                self.conn = self._run(open_(), open_timeout)

            def _run(self, coro, timeout=None):
                return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

            def send(self, text):
                self._run(self.conn.send(text))

            def recv(self, timeout=None):
                return self._run(self.conn.recv(), timeout)

            def close(self):
                self._run(self.conn.close())
                self.loop.call_soon_threadsafe(self.loop.stop)

        sync = types.ModuleType("websockets.sync")
        client = types.ModuleType("websockets.sync.client")
        client.connect = SyncConnection
        sync.client = client
        sys.modules["websockets.sync"] = sync
        sys.modules["websockets.sync.client"] = client
        used.append("websockets.sync")
    try:
        import verl.interactions.base  # noqa: F401
    except ImportError:
        base = types.ModuleType("verl.interactions.base")

        class BaseInteraction:
            def __init__(self, config):
                self.config = config
                self.name = config.get("name", "interaction_agent")

        base.BaseInteraction = BaseInteraction
        for name in ("verl", "verl.interactions"):
            sys.modules[name] = types.ModuleType(name)
        sys.modules["verl.interactions.base"] = base
        used.append("verl.interactions.base")
    return used


FAILURES: list[str] = []


def check(ok: bool, what: str) -> None:
    if not ok:
        FAILURES.append(what)
        print(f"FAIL {what}", file=sys.stderr)


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--url", required=True)
    p.add_argument("--token", default=None)
    p.add_argument("--episodes", type=int, default=3)
    args = p.parse_args()
    os.environ["SPARRING_ENV_URL"] = args.url
    if args.token:
        os.environ["SPARRING_ENV_TOKEN"] = args.token
    os.environ.setdefault("SPARRING_MODEL_NAME", "check-adapters")
    stand_ins = install_stand_ins()

    from check_protocol import ca_action, da_moves  # the scripted policies
    import trl_adapter
    from verl_interaction import SparringInteraction

    req = urllib.request.Request(args.url.rstrip("/") + "/schema", headers={"Authorization": f"Bearer {args.token}"} if args.token else {})
    role = "DA" if "Da" in json.load(urllib.request.urlopen(req))["action"]["title"] else "CA"
    played = 0

    # TRL: the environment class as GRPOTrainer drives it (reset with the row, then tool calls).
    env = trl_adapter.SparringDaEnv() if role == "DA" else trl_adapter.SparringCaEnv()
    for k in range(args.episodes):
        first = env.reset(seed=100 + k)
        # None: the row's prompt already ends with this turn (TRL appends what reset returns to it).
        check(first is None, f"trl reset {k}: returned {first!r}, which TRL would append to the prompt a second time")
        while not env.done:
            obs = env.session.last["observation"]
            if role == "DA":
                move = da_moves(obs)
                text = getattr(env, move["name"])(thinking=move["thinking"], **move["arguments"])
            else:
                text = env.say(utterance=ca_action(obs, "message")["message"])
            check(isinstance(text, str), f"trl episode {k}: a tool returned {type(text)}")
        mine = env.metadata["r_da" if role == "DA" else "r_ca"]
        check(close(trl_adapter.episode_reward([env])[0], mine), f"trl episode {k}: episode_reward {env.reward} != r_{role} {mine}")
        first_term = next(iter(env.metadata["terms"]))
        check(close(trl_adapter.term(first_term)([env])[0], env.metadata["terms"][first_term]), f"trl episode {k}: term({first_term}) differs")
        check(env.metadata.get("stored") is True, f"trl episode {k}: not stored")
        played += 1
    if role == "DA":
        env.reset(seed=1)
        refused = json.loads(env._call_tool("no_such_tool", {}))
        check(refused.get("error", "").startswith("VALIDATION_ERROR") and "unknown tool" in refused["error"], f"trl: unknown tool answered {refused!r}")
    env.session.close()

    # verl: the interaction as a multi-turn rollout drives it.
    async def verl_episodes() -> None:
        nonlocal played
        inter = SparringInteraction({"url": args.url, "token": args.token, "model": "check-adapters-verl"})
        for k in range(args.episodes):
            iid = await inter.start_interaction(seed=200 + k)
            total, done, meta = 0.0, False, {}
            while not done:
                obs = inter.sessions[iid].last["observation"]
                if role == "DA":
                    m = da_moves(obs)
                    if m["name"] in ("speak", "end_call"):
                        wire = {"thinking": m["thinking"], "action_type": m["name"], "content": m["arguments"]["message"], "tool_args": {}}
                    else:
                        wire = {"thinking": m["thinking"], "action_type": "tool_call", "content": m["name"], "tool_args": m["arguments"]}
                    content = json.dumps(wire)
                else:
                    content = ca_action(obs, "message")["message"]
                done, _text, score, meta = await inter.generate_response(iid, [{"role": "assistant", "content": content}])
                total += score
            mine = meta["r_da" if role == "DA" else "r_ca"]
            check(close(total, mine), f"verl episode {k}: turn scores sum to {total}, not r_{role} {mine}")
            check(close(await inter.calculate_score(iid), mine), f"verl episode {k}: calculate_score differs")
            await inter.finalize_interaction(iid)
            played += 1
        check(inter.sessions == {}, "verl: finalize left sessions open")

    asyncio.run(verl_episodes())
    print(json.dumps({"ok": not FAILURES, "role": role, "episodes": played, "stand_ins": stand_ins, "failures": FAILURES}))
    return 0 if not FAILURES else 1


if __name__ == "__main__":
    sys.exit(main())
