"""The exact tables a request needs, loaded before the rules core is called: a handler
(or a use case, through ``holding``) awaits ``held_tables`` and then calls the pure
functions (``report``, ``hint``, ``solution``, ``Hindsight``) straight away, so they
only ever meet tables in memory."""

from __future__ import annotations

from litestar.types import Scope

from service.api import problems
from service.rules.ruleset import Rules
from service.rules.solver import LOADED, Tables
from service.store.solving import Solver, SolverBusy, TooManySolves
from service.support.i18n import _
from service.usecases.tables import HoldTables


async def held_tables(scope: Scope, rules: Rules) -> Tables:
    """The tables of ``rules``, held in this process until the handler's next await.

    A variant solved nowhere yet takes a solve: 503 ``solver-busy`` when this process
    has as many waiting as it lets wait, 429 when the client has started too many.
    """
    held = LOADED.get(rules)
    if held is not None:  # most requests: nothing to load, no client to charge
        return held
    state = scope["app"].state
    solver: Solver = state.solver
    client = state.services.limiter.client_address(scope)
    try:
        return await solver.tables(rules, client)
    except SolverBusy as busy:
        raise problems.SOLVER_BUSY(
            _("Many rules variants are being solved right now; retry as Retry-After says."),
            headers={"Retry-After": str(busy.retry_after)},
        ) from None
    except TooManySolves as over:
        raise problems.RATE_LIMITED(
            _(
                "This client asked for too many rules variants not solved yet; retry as "
                "Retry-After says (variants solved before are not limited so)."
            ),
            headers={"Retry-After": str(over.retry_after)},
        ) from None


def holding(scope: Scope) -> HoldTables:
    """``held_tables`` for the request of ``scope``, as a use case asks for tables."""

    async def hold(rules: Rules) -> Tables:
        return await held_tables(scope, rules)

    return hold
