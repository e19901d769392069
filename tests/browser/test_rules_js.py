"""The page's rules engine (service/web/play/rules.js) against the server's: the same
legal sets for every roll under every move rule and box size, the same one-die rule
and the same scores, so that the page never offers a move the server refuses."""

from __future__ import annotations

import json
import subprocess

from service.rules.ruleset import (
    ALL_ROLLS,
    MOVE_RULE_VALUES,
    ONE_DIE_VALUES,
    SCORING_VALUES,
    Rules,
)
from service.web import PLAY_DIRECTORY
from tests.browser.environment import require

PROGRAM = """
const R = await import(process.argv[1]);
const rolls = JSON.parse(process.argv[2]);
const out = { sets: {}, oneDie: {}, score: {} };
for (let tiles = 2; tiles <= 12; tiles += 1) {
  for (const move_rule of ['any', 'dice_or_sum', 'single']) {
    for (const [d1, d2] of rolls) {
      for (const dice of [1, 2]) {
        out.sets[`${tiles}/${move_rule}/${d1}${d2}/${dice}`] =
          R.candidateSets({ tiles, move_rule }, [d1, d2], dice);
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
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    page = json.loads(done.stdout)
    for tiles in range(2, 13):
        for move_rule in MOVE_RULE_VALUES:
            rules = Rules(tiles=tiles, move_rule=move_rule)
            for roll in ALL_ROLLS:
                for dice in (1, 2):
                    key = f"{tiles}/{move_rule}/{roll[0]}{roll[1]}/{dice}"
                    assert page["sets"][key] == list(rules.candidate_sets(roll, dice)), key
        for one_die in ONE_DIE_VALUES[1:]:
            rules = Rules(tiles=tiles, one_die=one_die)
            allowed = [s for s in range(1 << tiles) if rules.one_die_allowed(s)]
            assert page["oneDie"].get(f"{tiles}/{one_die}", []) == allowed, (tiles, one_die)
        for scoring in SCORING_VALUES:
            rules = Rules(tiles=tiles, scoring=scoring)
            expected = [rules.score(s) for s in range(1 << tiles)]
            assert page["score"][f"{tiles}/{scoring}"] == expected, (tiles, scoring)
