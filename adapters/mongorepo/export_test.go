package mongorepo

// StageImport is stageImport, for the tests of what it does past the
// commit.
var StageImport = stageImport
