model token view token beta view test index view
test view user
config render build build user
model alpha parse index render
cache user user config config render
build model render render parse
index parse user beta
build model cache user
build config beta value build data value
value beta user view
cache test data model cache index index build data
model index render test value token alpha render
beta cache index parse token render test parse
test user index beta
user index user parse view parse
value build user cache
token data config alpha alpha view index parse
data token model build
config value data cache view view alpha
test beta token render index data beta
parse test build alpha
user cache render model build data beta test
render build render test test parse
build view data
cache build model
