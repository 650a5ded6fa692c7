user cache index test config config value
cache model cache model
alpha test view user parse value
parse data config cache model model token alpha model
user model index token
token token render render data parse index render
cache beta user render model
index cache value build
render render config
data value build
build view index cache alpha alpha render model
token model beta alpha
data user cache build parse
test render render beta token config test
index token data model view model model view
build token parse token user alpha test index render
user render user render render parse
user index alpha model render value config
