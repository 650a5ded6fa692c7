model index render data
index index cache cache index build index
token cache model model cache
test data token model
token value render model index render token value
parse alpha build index config config data
alpha build parse
token token parse token token build
beta user view build user user
user token index beta
token alpha user test user token data config
parse test model index cache config
token build index token user config parse
config value beta token view index cache
render cache user data model build parse config index
value build value test view index
value token index test build
config render value
view cache config config cache render parse build token
beta alpha data beta
data user test config model
