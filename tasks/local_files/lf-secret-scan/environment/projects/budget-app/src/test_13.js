parse config render
user cache model user index view
user data data user render alpha index token beta
value alpha model
value user alpha token render parse test data
render alpha token config
cache user token beta value value alpha
user index build cache config token
model build alpha token
index render build token
config value value token test render render model user
model beta user config
value data render index value cache config parse
alpha token view beta beta
data alpha parse cache model view
render index token index config test user parse
build user value token render data view
data user user render render render data
