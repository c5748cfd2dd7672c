// generate (issue 3)
