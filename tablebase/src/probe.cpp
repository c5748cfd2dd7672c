// probe (issue 3)
