"""What every layer leans on: settings, the clock and the calendar, codes and tokens,
languages, logs, places."""
