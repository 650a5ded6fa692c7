value cache build token data
value index model token build
user build alpha
render beta test parse value test cache
view config value beta
config alpha parse alpha index value view alpha
alpha test config data beta
render alpha user
config parse value beta build cache view index
test value alpha
cache model value model view test render
render parse view render index index user index parse
alpha token alpha
data render data alpha beta view cache parse beta
data beta alpha render user parse
user user parse alpha user
index cache token index cache config cache view parse
index user user beta user index
config beta index index cache build alpha render
build parse test test
alpha user token cache
beta user alpha view index view data beta token
alpha test token token parse model
model view index index token
view token beta view config build token token render
alpha build value token test
value parse parse token build user value index
parse alpha view config build cache cache
config alpha user cache data data data
token token value config
beta parse value beta model parse render parse
