"""Shut the Box Challenge: the game service."""
