index alpha model
user index config render cache
alpha value config data cache
render token alpha data index token parse config data
beta render index
data value render beta cache parse alpha cache
build token alpha token user
config index index model config render view user
cache view build index model index
config config value beta parse model render parse index
cache view build alpha model
model alpha data beta test value
model view config token
parse build config config
build alpha user model
view build config model index alpha
value data data alpha config
build beta data value token
cache alpha test data
user model index beta data parse config model
value alpha token render beta config token test parse
cache value value test token token test
model render alpha beta beta
index render data cache model value
token model render render view beta user parse parse
beta user alpha beta config cache render
build parse model render
index model model build cache beta index build beta
parse index alpha build alpha
test index token alpha user view cache token build
build config render parse test token model
alpha beta data user value index beta build
