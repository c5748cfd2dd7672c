// verify (issue 3)
