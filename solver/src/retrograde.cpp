// Retrograde analysis (issue 3).
