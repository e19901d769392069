"""The page's rules engine (service/web/play/rules.js) against the server's: the same
legal sets for every roll under every move rule, total and box size, in every position
where the position matters, the same dice to roll, the same one-die rule and the same
scores, so that the page never offers a move the server refuses."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import msgspec

from service.rules.ruleset import (
    ALL_ROLLS,
    MOVE_RULE_VALUES,
    ONE_DIE_CHOICE_VALUES,
    ONE_DIE_VALUES,
    SCORING_VALUES,
    TOTAL_VALUES,
    Rules,
)
from service.web import PLAY_DIRECTORY
from tests.system.browser.environment import require

PROGRAM = """
const R = await import(process.argv[1]);
const rolls = JSON.parse(process.argv[2]);
const [moveRules, totals] = JSON.parse(process.argv[3]);
const out = { sets: {}, oneDie: {}, score: {} };
for (let tiles = 2; tiles <= 12; tiles += 1) {
  for (const move_rule of moveRules) {
    for (const total of totals) {
      for (const [d1, d2] of rolls) {
        for (const dice of [1, 2]) {
          out.sets[`${tiles}/${move_rule}/${total}/${d1}${d2}/${dice}`] =
            R.candidateSets({ tiles, move_rule, total }, [d1, d2], dice);
        }
      }
    }
  }
  for (let open = 0; open < 1 << tiles; open += 1) {
    for (const one_die of ['high_closed', 'sum_le_6']) {
      if (R.oneDieAllowed({ tiles, one_die }, open)) (out.oneDie[`${tiles}/${one_die}`] ??= []).push(open);
    }
    for (const scoring of ['sum', 'count', 'digits']) (out.score[`${tiles}/${scoring}`] ??= []).push(R.score({ tiles, scoring }, open));
  }
}
console.log(JSON.stringify(out));
"""


def test_the_page_plays_by_the_servers_rules() -> None:
    node = require(browser=False)
    done = subprocess.run(
        [
            node,
            "--input-type=module",
            "-e",
            PROGRAM,
            (PLAY_DIRECTORY / "rules.js").as_uri(),
            json.dumps(ALL_ROLLS),
            json.dumps([MOVE_RULE_VALUES, TOTAL_VALUES]),
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    page = json.loads(done.stdout)
    for tiles in range(2, 13):
        for move_rule in MOVE_RULE_VALUES:
            for total in TOTAL_VALUES:
                rules = Rules(tiles=tiles, move_rule=move_rule, total=total)
                for roll in ALL_ROLLS:
                    for dice in (1, 2):
                        key = f"{tiles}/{move_rule}/{total}/{roll[0]}{roll[1]}/{dice}"
                        assert page["sets"][key] == list(rules.candidate_sets(roll, dice)), key
        for one_die in ONE_DIE_VALUES[1:]:
            rules = Rules(tiles=tiles, one_die=one_die)
            allowed = [s for s in range(1 << tiles) if rules.one_die_allowed(s)]
            assert page["oneDie"].get(f"{tiles}/{one_die}", []) == allowed, (tiles, one_die)
        for scoring in SCORING_VALUES:
            rules = Rules(tiles=tiles, scoring=scoring)
            expected = [rules.score(s) for s in range(1 << tiles)]
            assert page["score"][f"{tiles}/{scoring}"] == expected, (tiles, scoring)


# The page's answers to many questions at once: the questions on stdin, one answer each.
ASKED = """
const R = await import(process.argv[1]);
let input = '';
for await (const chunk of process.stdin) input += chunk;
const asked = JSON.parse(input);
const rules = asked.rules.map((r) => R.normalize(r)); // once each, as a round does
console.log(JSON.stringify({
  legal: asked.legal.map(([r, open, d1, d2, dice]) => R.legalSets(rules[r], open, [d1, d2], dice)),
  choices: asked.choices.map(([r, open]) => R.diceChoices(rules[r], open)),
}));
"""


def page_answers(questions: dict[str, Any]) -> dict[str, Any]:
    node = require(browser=False)
    done = subprocess.run(
        [node, "--input-type=module", "-e", ASKED, (PLAY_DIRECTORY / "rules.js").as_uri()],
        input=json.dumps(questions),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    answers: dict[str, Any] = json.loads(done.stdout)
    return answers


def as_json(rules: Rules) -> dict[str, Any]:
    """The rules as the page holds them: the fields the server sends (no nulls)."""
    return {k: v for k, v in msgspec.to_builtins(rules).items() if v is not None}


def test_the_page_offers_the_legal_sets_of_every_position() -> None:
    """``legalSets`` against ``Rules.legal_sets``: on the full box for every box size,
    move rule, total and roll, on one die and two; in every position where the position
    decides more than which tiles are open (``die_or_sum_both``, ``first_must_close``,
    with a start of its own too); and on every total that ends the turn."""
    every_rules: list[Rules] = []
    legal: list[tuple[int, int, int, int, int]] = []

    def ask(
        rules: Rules, positions: range | list[int], dice_counts: tuple[int, ...] = (1, 2)
    ) -> None:
        every_rules.append(rules)
        for position in positions:
            for d1, d2 in ALL_ROLLS:
                for dice in dice_counts:
                    legal.append((len(every_rules) - 1, position, d1, d2, dice))

    for tiles in range(2, 13):
        for move_rule in MOVE_RULE_VALUES:
            for total in TOTAL_VALUES:
                rules = Rules(tiles=tiles, move_rule=move_rule, total=total)
                ask(rules, [rules.full])
    for tiles in (4, 9):  # 4: a die's tile may be off the box
        for total in TOTAL_VALUES:
            rules = Rules(tiles=tiles, move_rule="die_or_sum_both", total=total)
            ask(rules, range(1 << tiles), (2,))  # one die: the full box's sets above
    ask(Rules(first_must_close=2), range(1 << 9))
    odd = (1, 3, 5, 7, 9)
    ask(Rules(first_must_close=3, start=odd, move_rule="die_or_sum_both"), range(1 << 9))
    for stop in range(2, 13):
        ask(Rules(stop_on_total=stop, one_die="high_closed"), [0b111111111, 0b111111])
    page = page_answers(
        {"rules": [as_json(r) for r in every_rules], "legal": legal, "choices": []}
    )["legal"]
    assert len(page) == len(legal)
    for (r, position, d1, d2, dice), sets in zip(legal, page, strict=True):
        rules = every_rules[r]
        expected = list(rules.legal_sets(position, (d1, d2), dice))
        assert sets == expected, (as_json(rules), position, (d1, d2), dice)


def test_the_page_rolls_the_dice_the_rules_allow() -> None:
    """``diceChoices`` against ``Rules.dice_choices`` in every position of every box,
    one die allowed or not, chosen or a must."""
    every_rules = [
        Rules(tiles=tiles, one_die=one_die, one_die_choice=choice)
        for tiles in range(2, 13)
        for one_die in ONE_DIE_VALUES
        for choice in ONE_DIE_CHOICE_VALUES
    ]
    asked = [(r, p) for r, rules in enumerate(every_rules) for p in range(1 << rules.tiles)]
    page = page_answers({"rules": [as_json(r) for r in every_rules], "legal": [], "choices": asked})
    for (r, position), choices in zip(asked, page["choices"], strict=True):
        rules = every_rules[r]
        assert choices == list(rules.dice_choices(position)), (as_json(rules), position)
    assert any(c == [1] for c in page["choices"]), "one die is a must somewhere"
