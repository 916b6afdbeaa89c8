base = zen3
retire = 2
retire = 3
