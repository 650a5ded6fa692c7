data index test
view beta cache alpha value token cache parse beta
alpha data alpha data
beta user index model cache token render model cache
data alpha config
user parse alpha parse
parse alpha user user
test value data token data index test index
config config value render alpha
beta cache data test cache cache parse config parse
data cache view test data user token render cache
token model value beta test build
parse alpha alpha
index alpha user build value token alpha
config model test alpha value value token index
build model config user
parse index render index value value test
test value render value user cache index model parse
token value index config
model beta index parse cache view
config test beta model parse
beta data user index test
beta cache value index
test cache parse render alpha alpha beta
value index data render
index cache model
token data beta view
