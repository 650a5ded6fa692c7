index build view test user index
model data model user cache test build
build user cache alpha cache beta
alpha index render index render render parse value
config parse config view cache token
data view value value view build
token test test build model
config index user test config alpha view
parse alpha parse
build value index build beta model
index config render model render beta cache index
