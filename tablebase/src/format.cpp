// format (issue 3)
