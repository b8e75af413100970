SELECT * FROM titanic -- weir: name=ignored
