data alpha value parse
user data data model data model alpha config
data beta test value parse
build build render index
build view alpha
value view parse parse model alpha
token test parse test test
user view cache render build
