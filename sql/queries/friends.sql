-- name: replace_friend_code
-- Give the player a new friend code, replacing (revoking) the last one; a clash with
-- another player's code is refused by the unique key (the caller retries).
INSERT INTO friend_codes (player_id, code, created_at) VALUES ($1, $2, $3)
ON CONFLICT (player_id) DO UPDATE SET code = EXCLUDED.code, created_at = EXCLUDED.created_at;

-- name: friend_code_owner
-- The player whose live friend code is $1: id and name.
SELECT p.id, p.name
FROM friend_codes c JOIN players p ON p.id = c.player_id
WHERE c.code = $1;

-- name: lock_players
-- Serialise what changes the friends of these players: their rows locked in the order of
-- their ids, so that two transactions over the same two players never deadlock.
SELECT id FROM players WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE;

-- name: friendship_counts
-- Whether $1 and $2 are friends, and how many friends each has (200 at most: a range
-- of the key each).
SELECT EXISTS (SELECT 1 FROM friendships WHERE player_id = $1 AND friend_id = $2) AS friends,
       (SELECT count(*) FROM friendships WHERE player_id = $1)::int AS mine,
       (SELECT count(*) FROM friendships WHERE player_id = $2)::int AS theirs;

-- name: insert_friendship
-- $1 and $2 are friends from $3 on: a row each way.
INSERT INTO friendships (player_id, friend_id, since)
VALUES ($1, $2, $3), ($2, $1, $3)
ON CONFLICT (player_id, friend_id) DO NOTHING;

-- name: delete_friendship
-- $1 and $2 are friends no more, both ways: the rows that went (none: they were not).
DELETE FROM friendships
WHERE (player_id = $1 AND friend_id = $2) OR (player_id = $2 AND friend_id = $1)
RETURNING player_id;

-- name: friends
-- A player's friends (200 at most), in the order they became friends, with what their
-- streaks are made of: their time zone, the date their closed dates end at, their streak
-- row (none: never played), and which of the dates that are today somewhere they
-- played: $2, $3 and $4, a lookup by key a date, each a parameter of its own (as in
-- ``streak``: a scan of its month alone).
SELECT p.id, p.name, p.time_zone, p.closed_before, s.latest_length, s.best, s.last_played,
       s.freezes, s.weekly_length, s.weekly_best,
       ARRAY(SELECT r.day FROM daily_runs r WHERE r.player_id = f.friend_id AND r.day = $2::date
             UNION ALL
             SELECT r.day FROM daily_runs r WHERE r.player_id = f.friend_id AND r.day = $3::date
             UNION ALL
             SELECT r.day FROM daily_runs r WHERE r.player_id = f.friend_id AND r.day = $4::date)
         AS played_around
FROM friendships f
JOIN players p ON p.id = f.friend_id
LEFT JOIN streaks s ON s.player_id = f.friend_id
WHERE f.player_id = $1
ORDER BY f.since, f.friend_id;

-- name: friends_board
-- The official runs of date $2 by player $1 and their friends, best first (ties in order
-- of submission): a lookup by key a player, 201 at most, never a read of the date's runs.
SELECT p.id, p.name, r.score
FROM daily_runs r JOIN players p ON p.id = r.player_id
WHERE r.day = $2
  AND r.player_id = ANY (ARRAY(SELECT f.friend_id FROM friendships f WHERE f.player_id = $1)
                         || $1::uuid)
ORDER BY r.score, r.submitted_at, r.player_id;

-- name: friend_code_of
-- The player's live friend code, if they have made one.
SELECT code FROM friend_codes WHERE player_id = $1;
