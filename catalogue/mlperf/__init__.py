"""MLPerf Training read from MLCommons' results repositories: the log parser (`logs`), system
descriptions (`systems`), each round's scoring rule (`scoring`), the fixture's shape (`fixture`)
and its loader (`load`). All but `load` are pure."""
