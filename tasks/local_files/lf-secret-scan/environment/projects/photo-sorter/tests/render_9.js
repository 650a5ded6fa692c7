build alpha index
value view test user cache index data
config data index render view
config value data cache parse
alpha index user test parse cache beta data
test model parse user cache token value data user
cache index build data alpha render parse
value token parse beta
parse beta cache token view cache token parse
alpha user index config
alpha view parse user
index token build config config parse parse
model build value index alpha
render config value token value build render view model
alpha config user data build index build user user
view test value beta
view view value value user beta cache token alpha
model test config alpha view parse
alpha token build index value build cache
token alpha cache
beta view config value beta cache data index
build beta token cache data
alpha parse data test cache
alpha index value test cache index
value model view user beta
render beta model build beta test data beta
token parse index
parse cache model view index build
