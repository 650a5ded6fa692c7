cache beta build render parse build alpha config
parse config test token parse parse view
user beta model data model parse user alpha
render test render value test
data config render
cache config build data parse token value
index token view build token render value
model build user user value
index view test render beta alpha index
index cache alpha
token value test
beta build beta user parse view test index value
beta render view cache build index alpha test
data parse config cache
index model user
build value beta data token value cache parse
