model build beta token test data token token data
user build data
cache test user value beta
view beta test
parse parse token build alpha
render value value config view parse user user
cache test index build beta cache build
build config model test
