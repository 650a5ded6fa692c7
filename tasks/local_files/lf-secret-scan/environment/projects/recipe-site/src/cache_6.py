parse config model
data config render test build model test index config
token render beta model
build parse user cache model
model build beta build beta test cache
test user token build view model build render parse
render index test value alpha parse
alpha view test
cache index build parse token test alpha parse
