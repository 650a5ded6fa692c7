token build model build render test
index cache token data user index beta alpha
cache cache token
alpha token build index test render index
user parse token alpha parse alpha
index data beta test
config config alpha view view parse data alpha build
render token parse alpha cache model
test value model
config data token test
parse data render render build build
test cache test beta model
build user token alpha data view token view view
data alpha model token alpha cache model
config parse value value render
beta render test config beta token value
beta value config build render parse
model parse beta config render user index model
config model cache alpha
value cache beta render build
view token render data index render view value index
token cache alpha render test user index model
user value beta beta user beta
user value data
data beta view render user parse data render index
cache alpha model parse
