// c_api (issue 3)
