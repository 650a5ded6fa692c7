user test beta
model beta view build index build parse
cache config token token data parse
view view alpha alpha user
render cache test alpha config token view config
parse build view value data parse beta token
