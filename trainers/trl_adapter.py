"""TRL adapter: Sparring's world as an `environment_factory` for TRL's GRPOTrainer (TRL >= 1.x,
"OpenEnv integration": the trainer makes one environment per rollout slot, calls `reset(**row)`
with the dataset row before each generation, exposes the public methods as tools, and passes the
environments to the reward functions as `environments`).

Each environment is one `sparring env serve` session (a WebSocket). The rows come from
`sparring gym export RUN --gym N` (columns `seed`, `scenario`, `replay`; the prompt is the row's
`prompt.messages`), so every rollout starts at a decision point of the gym and the server plays
the rest of the episode against the frozen opponent: the reward is r_DA (or r_CA) of that rollout,
RL-ADA's r_env included.

Set SPARRING_ENV_URL (default http://127.0.0.1:7318), SPARRING_ENV_TOKEN when the server has one,
and SPARRING_MODEL_NAME (stored with each episode in the lab).
"""
from __future__ import annotations

import os
from typing import Any

from sparring_env import SparringError, SparringSession, latest_turn_text

URL = os.environ.get("SPARRING_ENV_URL", "http://127.0.0.1:7318")
TOKEN = os.environ.get("SPARRING_ENV_TOKEN") or None
MODEL = os.environ.get("SPARRING_MODEL_NAME", "trl")


class _Session:
    """What both roles share: one server session, the last answer, the episode's reward."""

    def __init__(self) -> None:
        self.session = SparringSession(URL, model=MODEL, token=TOKEN)
        self.reward = 0.0
        self.done = False
        self.metadata: dict[str, Any] = {}

    def _start(self, seed: Any = None, scenario: Any = None, replay: Any = None) -> str:
        ans = self.session.reset(seed=seed, scenario=scenario, replay=replay)
        self.reward, self.done, self.metadata = 0.0, False, ans["observation"].get("metadata", {})
        return latest_turn_text(ans["observation"])

    def _act(self, action: dict[str, Any]) -> str:
        if self.done:
            return "The call has ended."
        try:
            ans = self.session.step(action)
        except SparringError as e:  # an unknown tool or bad arguments: the model sees why
            return f"Error: {e}"
        self.metadata = ans["observation"].get("metadata", {})
        self.reward += ans["reward"] or 0.0
        self.done = bool(ans["done"])
        return "The call has ended." if self.done else latest_turn_text(ans["observation"])


class SparringDaEnv(_Session):
    """The support agent's seat. Every tool takes `thinking` (the wire format's thinking field:
    an empty one forfeits r_format's +0.5)."""

    def reset(self, seed: int | None = None, scenario: str | None = None, replay: list[str] | None = None, **_: Any) -> str:
        return self._start(seed, scenario, replay)

    def _tool(self, name: str, thinking: str, **args: Any) -> str:
        return self._act({"tool_call": {"name": name, "arguments": {k: v for k, v in args.items() if v is not None}}, "thinking": thinking})

    def lookup_account(self, phone: str, thinking: str = "") -> str:
        """Verify the caller by caller-ID phone number; returns the customer's accounts and cards.

        Args:
            phone: the caller's phone number (caller ID).
            thinking: your reasoning before this call.
        """
        return self._tool("lookup_account", thinking, phone=phone)

    def get_transactions(self, account_id: str, limit: int | None = None, thinking: str = "") -> str:
        """Recent transactions of an account (at most 5).

        Args:
            account_id: the account.
            limit: how many (1-5).
            thinking: your reasoning before this call.
        """
        return self._tool("get_transactions", thinking, account_id=account_id, limit=limit)

    def dispute_charge(self, account_id: str, reason: str, transaction_id: str | None = None, merchant: str | None = None, amount: float | None = None, thinking: str = "") -> str:
        """Open a dispute on one transaction, by id or by merchant and/or amount.

        Args:
            account_id: the account.
            reason: unrecognized, duplicate, refund_missing, not_received or other.
            transaction_id: the transaction, when known.
            merchant: the merchant, when the id is not known.
            amount: the amount, when the id is not known.
            thinking: your reasoning before this call.
        """
        return self._tool("dispute_charge", thinking, account_id=account_id, reason=reason, transaction_id=transaction_id, merchant=merchant, amount=amount)

    def check_card_status(self, card_id: str, unblock: bool | None = None, thinking: str = "") -> str:
        """Status of a card; optionally lift a fraud-prevention block.

        Args:
            card_id: the card.
            unblock: lift a fraud-prevention block.
            thinking: your reasoning before this call.
        """
        return self._tool("check_card_status", thinking, card_id=card_id, unblock=unblock)

    def transfer_funds(self, from_account_id: str, to_account_id: str, amount: float, thinking: str = "") -> str:
        """Move money between the customer's own accounts.

        Args:
            from_account_id: the source account.
            to_account_id: the destination account.
            amount: dollars.
            thinking: your reasoning before this call.
        """
        return self._tool("transfer_funds", thinking, from_account_id=from_account_id, to_account_id=to_account_id, amount=amount)

    def transfer_to_human(self, reason: str, department: str | None = None, thinking: str = "") -> str:
        """Hand the call to a human department.

        Args:
            reason: why.
            department: fraud, cards, accounts or general.
            thinking: your reasoning before this call.
        """
        return self._tool("transfer_to_human", thinking, reason=reason, department=department)

    def speak(self, message: str, thinking: str = "") -> str:
        """Say something to the customer: a question, or the explanation of a tool result.

        Args:
            message: what you say.
            thinking: your reasoning before speaking.
        """
        return self._tool("speak", thinking, message=message)

    def end_call(self, message: str = "", thinking: str = "") -> str:
        """End the call, with closing words.

        Args:
            message: your closing words.
            thinking: your reasoning before ending.
        """
        return self._tool("end_call", thinking, message=message)


class SparringCaEnv(_Session):
    """The customer's seat: one tool, `say`."""

    def reset(self, seed: int | None = None, scenario: str | None = None, replay: list[str] | None = None, **_: Any) -> str:
        return self._start(seed, scenario, replay)

    def say(self, utterance: str) -> str:
        """Say your next line to the support agent (plain customer language; never name your problem's category).

        Args:
            utterance: what you say.
        """
        return self._act({"message": utterance})


# ---- reward functions: the server's reward, and its terms for logging ------------------------------


def episode_reward(environments: list[_Session], **_: Any) -> list[float]:
    """r_DA (DA seat) or r_CA (CA seat) of each rollout, as the server computed it (RL-ADA Table 2 /
    the CA terms, judge included). 0 for a rollout that did not finish the episode."""
    return [env.reward if env.done else 0.0 for env in environments]


def term(name: str):
    """A reward function that reads one term (e.g. "format", "tool", "env_judge") of each finished
    rollout: pass with weight 0 in `reward_weights` to log it without training on it twice."""

    def fn(environments: list[_Session], **_: Any) -> list[float]:
        return [float(env.metadata.get("terms", {}).get(name, 0.0)) if env.done else 0.0 for env in environments]

    fn.__name__ = f"term_{name}"
    return fn
