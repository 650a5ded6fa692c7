model build view parse cache
render model view token config index test view
index config config view test
config model value index token alpha
alpha token view
parse build cache index
token render build render index
index data test view value value build config
view user data parse beta cache parse
token data user test beta
cache alpha config build beta view
parse token config config data model parse
build model user model alpha token test render
render model index parse
build beta alpha build
data alpha test alpha alpha render data
