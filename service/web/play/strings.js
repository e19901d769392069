// Every sentence and word the page shows, in one table per language. Only English for
// now: a translation is another table with the same keys (a missing key falls back to
// English), plus its locale for numbers and dates. Placeholders are {name}; words
// that change with a number have {one, other} forms (Intl.PluralRules categories).

export const en = {
  locale: 'en',
  'app.title': 'Shut the Box Challenge',
  'app.tagline': 'Close the tiles, beat the dice.',
  'nav.label': 'Game modes',
  'nav.daily': 'Daily Dice',
  'nav.box': 'Friend Box',
  'nav.solo': 'Solo',
  'nav.account': 'Account',
  'footer.rules': 'Close open tiles that add up to the roll. When no tiles fit, the turn ends: your score is what stays open. Lowest wins; 0 shuts the box.',

  'error.unknown': 'Something went wrong.',
  'error.network': 'The server could not be reached. Check your connection and try again.',
  'error.status': 'The server answered with status {status}.',
  'error.retryAfter': 'Try again in {seconds} s.',
  'error.tokenGone': 'This browser is no longer signed in as its player (was it moved to another device?).',
  'error.newPlayer': 'Start as a new player',
  'common.loading': 'Loading…',
  'common.retry': 'Try again',
  'common.copy': 'Copy',
  'common.copied': 'Copied!',
  'common.copyFailed': 'Copy failed: select the text and copy it yourself.',
  'common.anonymous': 'Anonymous',

  'round.tiles': 'Tiles',
  'round.history': 'Rolls so far',
  'round.keys': 'Keys: 1–9 pick a tile, Enter closes them, Esc clears.',
  'round.keysTen': 'Keys: 1–9 and 0 (for 10) pick a tile, Enter closes them, Esc clears.',
  'round.rollNumber': 'Roll {roll}',
  'round.done': 'Box shut',
  'round.scoreNow': 'Score now {score}',
  'round.rollTextTwo': '{d1} + {d2} = {total}',
  'round.rollTextOne': 'One die: {d1}',
  'round.oneDieAllowed': 'You may roll one die or two.',
  'round.chooseDice': 'Roll {roll}: roll one die or two?',
  'round.chooseHelp': 'Choose how many dice to roll (keys 1 and 2).',
  'round.rolledTwo': 'Roll {roll}: {d1} and {d2}, total {total}.',
  'round.rolledOne': 'Roll {roll}: one die, {d1}.',
  'round.closeTotal': 'Close tiles that add up to {total}.',
  'round.pick': 'Pick tiles that add up to {total}.',
  'round.selectedMore': 'Selected {sum} of {total}: pick more.',
  'round.selectedReady': 'Close {tiles} for {total}?',
  'round.ready': '{tiles} selected. Press Enter to close them.',
  'round.closed': 'Closed {tiles}.',
  'round.closeTiles': 'Close {tiles}',
  'round.closeNothing': 'Close tiles',
  'round.clear': 'Clear',
  'round.hint': 'Hint',
  'round.rollTwo': 'Roll two dice',
  'round.rollOne': 'Roll one die',
  'round.tileOpen': 'Tile {tile}',
  'round.tileMuted': 'Tile {tile}, no use on this roll',
  'round.tileClosed': 'Tile {tile}, closed',
  'round.shut': 'You shut the box!',
  'round.stuckTwo': 'No open tiles make {total}: the turn is over. Score {score}.',
  'round.stuckOne': 'No open tile makes {total}: the turn is over. Score {score}.',

  'history.two': '{d1} + {d2}',
  'history.one': '{d1} (one die)',
  'history.none': 'no move',
  'history.rollNumber': '(roll {roll})',

  'hint.title': 'Hint',
  'hint.loading': 'Working out the odds…',
  'hint.explain': 'Ranked by the chance to shut the box, then by the expected score.',
  'hint.shutChance': 'shut chance {p}',
  'hint.expected': 'expected score {e}',
  'hint.best': 'Best',
  'hint.more': 'Show {n} more',

  'daily.title': 'Daily Dice',
  'daily.intro': 'The same dice for everyone today. One official try: make it count.',
  'daily.start': 'Start today’s round',
  'daily.playing': 'Today’s round',
  'daily.submitting': 'Checking your run…',
  'daily.played': 'You have played today. Here is your official result.',
  'daily.tomorrow': 'New dice at midnight ({zone}).',

  'result.title': 'Your result',
  'result.shut': 'Shut the box!',
  'result.scoreLabel': 'Score',
  'result.open': 'Open: {tiles}',
  'result.rolls': { one: '{n} roll', other: '{n} rolls' },
  'result.rank': 'Rank',
  'result.rankValue': '{position} of {players}',
  'result.percentile': 'Better than {p} of players',
  'result.streak': 'Streak',
  'result.streakValue': { one: '{n} day', other: '{n} days' },
  'result.streakBest': 'Best {best}',
  'result.versus': 'Versus the owner',
  'result.win': 'You win! The owner scored {score}.',
  'result.tie': 'A tie: the owner scored {score} too.',
  'result.loss': 'The owner wins with {score}.',
  'result.computer': 'The computer players on your dice',
  'result.you': 'You',
  'result.easy': 'Easy',
  'result.medium': 'Medium',
  'result.hard': 'Hard',
  'result.computerShut': 'shut',
  'result.computerNote': 'Easy picks at random, Medium closes the highest tiles, Hard plays the best odds.',
  'result.analysis': 'Analysis',
  'result.bestPossible': 'Best possible on these dice',
  'result.totalCost': 'Your choices cost',
  'result.perfect': 'You found the best possible score on these dice.',
  'result.couldBeBetter': {
    one: 'Knowing the later rolls, {n} choice could have been better (marked below): it cost {cost}.',
    other: 'Knowing the later rolls, {n} choices could have been better (marked below): together they cost {cost}.',
  },
  'result.bestLine': 'A line that reaches {score}: ',
  'result.moves': 'Move by move',
  'result.moveRoll': 'Roll {roll}',
  'result.you_chose': 'You: {tiles}',
  'result.best_bet': 'Best odds: {tiles}',
  'result.hindsight': 'Hindsight: {tiles}',
  'result.cost': 'cost +{cost}',
  'result.noMove': 'no move',
  'result.label.best': 'best',
  'result.label.inaccuracy': 'inaccuracy',
  'result.label.mistake': 'mistake',
  'result.label.blunder': 'blunder',
  'result.labelHelp': 'Labels compare each choice with the best odds at the time (no foresight); the cost is what it lost on the dice that came.',
  'result.share': 'Share',
  'result.shareLoading': 'Getting your share text…',

  'box.title': 'Friend Box',
  'box.intro': 'Play the same dice as your friends: make a box and share its code, or open a friend’s.',
  'box.openTitle': 'Open a box',
  'box.code': 'Box code',
  'box.codeHelp': 'Like ABCD-EFGH1. Case, spaces and dashes don’t matter.',
  'box.mode': 'How to play',
  'box.blind': 'Blind',
  'box.blindHelp': 'the owner’s result stays hidden until you have played',
  'box.target': 'With target',
  'box.targetHelp': 'see the owner’s final position and try to beat it',
  'box.open': 'Open box',
  'box.createTitle': 'Make a box',
  'box.createHelp': 'Fresh dice behind a code to share. Standard rules unless you choose others.',
  'box.rules': 'Rules',
  'box.rulesNote': 'standard unless you change them',
  'box.create': 'Make a box',
  'box.created': 'Your box is ready',
  'box.shareCode': 'Share this code or link with your friends, then play it yourself.',
  'box.copyLink': 'Copy link',
  'box.info': 'Box {code}',
  'box.owner': 'Made by {name}',
  'box.players': { one: '{n} player so far', other: '{n} players so far' },
  'box.noTarget': 'The owner has not played yet: no target to show.',
  'box.targetShown': 'Target: score {score}, open {tiles}.',
  'box.targetShut': 'Target: the owner shut the box (score 0).',
  'box.play': 'Play this box',
  'box.playNow': 'Play it now',
  'box.playing': 'Box {code}',
  'box.submitting': 'Checking your run…',
  'box.results': 'Results',
  'box.noResults': 'No results yet.',
  'box.alreadyPlayed': 'You have played this box already.',
  'box.modeBlind': 'blind',
  'box.modeTarget': 'target',
  'box.shutShort': 'shut',

  'solo.title': 'Solo',
  'solo.intro': 'Practice on fresh dice under any rules, with hints, then see the analysis.',
  'solo.start': 'Roll the dice',
  'solo.again': 'Play again',
  'solo.change': 'Change rules',
  'solo.playing': 'Solo round',
  'solo.analysing': 'Analysing your round…',

  'rules.tiles': 'Tiles',
  'rules.tilesValue': '1 to {n}',
  'rules.one_die': 'One die',
  'rules.move_rule': 'Moves',
  'rules.scoring': 'Scoring',
  'rules.summary': '{tiles} tiles · {one_die} · {move_rule} · {scoring}',
  'rules.value.one_die.never': 'never',
  'rules.value.one_die.high_closed': 'once 7 and up are shut',
  'rules.value.one_die.sum_le_6': 'once 6 or less is open',
  'rules.value.move_rule.any': 'any tiles',
  'rules.value.move_rule.dice_or_sum': 'dice or sum',
  'rules.value.move_rule.single': 'one tile',
  'rules.value.scoring.sum': 'sum',
  'rules.value.scoring.count': 'count',
  'rules.value.scoring.digits': 'digits',
  'rules.help.one_die.never': 'Always roll two dice.',
  'rules.help.one_die.high_closed': 'You may roll one die once every tile of 7 or more is closed.',
  'rules.help.one_die.sum_le_6': 'You may roll one die once the open tiles add up to 6 or less.',
  'rules.help.move_rule.any': 'Close any set of open tiles that adds up to the roll.',
  'rules.help.move_rule.dice_or_sum': 'Close the tile equal to the total, or the two tiles equal to the two dice.',
  'rules.help.move_rule.single': 'Close exactly one tile, equal to either die or to the total.',
  'rules.help.scoring.sum': 'Your score is the sum of the open tiles.',
  'rules.help.scoring.count': 'Your score is the number of open tiles.',
  'rules.help.scoring.digits': 'The open tiles in ascending order, read as one number (2, 5, 7 is 257).',

  'account.title': 'Account',
  'account.intro': 'Your player lives in this browser. No e-mail, no password.',
  'account.player': 'Your player',
  'account.name': 'Name',
  'account.nameHelp': 'Shown to friends on Friend Box results. Up to 40 characters.',
  'account.saveName': 'Save name',
  'account.saved': 'Saved.',
  'account.zone': 'Time zone',
  'account.zoneHelp': 'Your Daily Dice day follows it. It can change once in 24 hours.',
  'account.useZone': 'Use this device’s time zone ({zone})',
  'account.streak': 'Streak: {current} (best {best})',
  'account.since': 'Playing since {date}',
  'account.moveTitle': 'Move to another device',
  'account.moveHelp': 'Get a one-time code and enter it on the new device within 15 minutes. This browser then stops being this player.',
  'account.getCode': 'Get a transfer code',
  'account.codeIs': 'Your transfer code',
  'account.codeExpires': 'Valid until {time}. Shown once: a new code replaces it.',
  'account.haveCode': 'I have a code',
  'account.haveCodeHelp': 'Enter the code from your other device. This browser’s current player is replaced by that one.',
  'account.transferCode': 'Transfer code',
  'account.claim': 'Move my player here',
  'account.claimed': 'Welcome back{name}! This browser is now your player.',
  'account.creating': 'Setting up your player…',
};

const tables = { en };
let table = en;

export function setLanguage(code) {
  table = tables[code] ?? en;
  document.documentElement.lang = table.locale;
}

export function locale() {
  return table.locale ?? en.locale;
}

function fill(text, params) {
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

// t('round.rollNumber', { roll: 3 }) → "Roll 3".
export function t(key, params = {}) {
  const text = table[key] ?? en[key];
  if (text === undefined) return key;
  if (typeof text === 'object') return tn(key, params.n ?? 0, params);
  return fill(text, params);
}

// A sentence with a count: tn('result.rolls', 3) → "3 rolls".
export function tn(key, n, params = {}) {
  const forms = table[key] ?? en[key];
  if (typeof forms !== 'object') return t(key, { ...params, n });
  const category = new Intl.PluralRules(locale()).select(n);
  return fill(forms[category] ?? forms.other, { ...params, n: formatNumber(n) });
}

export function formatNumber(value, digits = 0) {
  return new Intl.NumberFormat(locale(), { maximumFractionDigits: digits }).format(value);
}

// formatPercent(7.1428) → "7.1%" (a value in percent).
// Small chances keep two significant digits (0.034%), so that they don't read as 0%.
export function formatPercent(percent) {
  const small = percent > 0 && percent < 1;
  const options = small ? { maximumSignificantDigits: 2 } : { maximumFractionDigits: 1 };
  return new Intl.NumberFormat(locale(), { style: 'percent', ...options }).format(percent / 100);
}

// A date "YYYY-MM-DD" written out, e.g. "Monday, 30 November 2026".
export function formatDate(day) {
  return new Intl.DateTimeFormat(locale(), { dateStyle: 'full', timeZone: 'UTC' }).format(new Date(`${day}T00:00:00Z`));
}

export function formatTime(iso) {
  return new Intl.DateTimeFormat(locale(), { timeStyle: 'short', dateStyle: 'medium' }).format(new Date(iso));
}

// Tiles of a move, highest first: "9+3".
export function formatMove(tiles) {
  return [...tiles].sort((a, b) => b - a).join('+');
}
