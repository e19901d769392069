"""What a use case asks of its caller to hold a variant's exact tables."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from service.rules.ruleset import Rules
from service.rules.solver import Tables

HoldTables = Callable[[Rules], Awaitable[Tables]]
"""The exact tables of some rules, held in memory until the caller's next await (the
API's ``held_tables``: a variant not solved yet takes a solve, which it may refuse)."""
